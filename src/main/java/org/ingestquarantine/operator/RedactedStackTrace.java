package org.ingestquarantine.operator;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stored stack trace as the operator sees it: exception types and stack frames only, every exception message left
 * out. The quarantine keeps the failure's whole {@link Throwable#printStackTrace()} text in the payload store
 * ({@code quarantine.FailureEvidence}); the messages in it are the exceptions' own, of every cause, unbounded and
 * unescaped, and a parser's may quote the document (a font name, an operator, a string from the file). The row's
 * {@code error_message} is the one message the page shows, bounded and escaped; the trace adds where it failed.
 *
 * <p>What is kept, line by line: the first line's and each {@code Caused by:} / {@code Suppressed:} line's type (the
 * text before {@code ": "}, when it is a Java class name with its package; a message that was there reads {@value #MESSAGE_LEFT_OUT}),
 * frames ({@code at [module/]class.method(File.java:12)}, {@code (Native Method)}, {@code (Unknown Source)}) and
 * {@code ... N more}. Every other line is a message's continuation and is dropped. A message line would pass only if
 * shaped exactly as one of those: a tab, {@code at }, a name without spaces and a parenthesised file and line.
 */
public final class RedactedStackTrace {

    /** Stands where an exception's message was. */
    public static final String MESSAGE_LEFT_OUT = "[message left out]";

    /** Stands for an exception line whose type is not a Java name (an exception with its own toString). */
    public static final String TYPE_NOT_SHOWN = "[exception type not shown]";

    private static final String NAME = "[\\p{L}_$][\\p{L}\\p{N}_$]*";
    /** A class name with its package: a word alone (a custom toString, say) is not taken for a type. */
    private static final Pattern TYPE = Pattern.compile(NAME + "(?:\\." + NAME + ")+");
    private static final Pattern FRAME = Pattern.compile("\t+at [\\p{L}\\p{N}_$.<>/@+-]+"
            + "\\((?:Native Method|Unknown Source|[\\p{L}\\p{N}_$.<>-]+(?::\\d+)?)\\)");
    private static final Pattern MORE = Pattern.compile("\t+\\.\\.\\. \\d+ more");
    private static final Pattern CAUSE = Pattern.compile("(\t*)(Caused by: |Suppressed: )(.*)");
    private static final Pattern CIRCULAR = Pattern.compile("\\[CIRCULAR REFERENCE: (.*)]");

    private RedactedStackTrace() {
    }

    /**
     * @param printed a stack trace as {@link Throwable#printStackTrace()} prints it
     * @return its types and frames, one per line, each message replaced by {@value #MESSAGE_LEFT_OUT}
     */
    public static String of(String printed) {
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (String line : (Iterable<String>) printed.lines()::iterator) {
            if (first) {
                if (line.isBlank()) {
                    continue;
                }
                out.append(type(line.strip())).append('\n');
                first = false;
                continue;
            }
            Matcher cause = CAUSE.matcher(line);
            if (FRAME.matcher(line).matches() || MORE.matcher(line).matches()) {
                out.append(line).append('\n');
            } else if (cause.matches()) {
                out.append(cause.group(1)).append(cause.group(2)).append(type(cause.group(3))).append('\n');
            }
            // else: a further line of the message above, dropped with it
        }
        return out.toString();
    }

    /** @return an exception line ({@code Type} or {@code Type: message}) as its type and whether it had a message */
    private static String type(String shown) {
        Matcher circular = CIRCULAR.matcher(shown);
        if (circular.matches()) {
            return "[CIRCULAR REFERENCE: " + type(circular.group(1)) + "]";
        }
        int colon = shown.indexOf(": ");
        String type = colon < 0 ? shown : shown.substring(0, colon);
        if (!TYPE.matcher(type).matches()) {
            return TYPE_NOT_SHOWN;
        }
        return colon < 0 ? type : type + ": " + MESSAGE_LEFT_OUT;
    }
}
