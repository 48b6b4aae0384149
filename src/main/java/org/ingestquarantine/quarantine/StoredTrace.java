package org.ingestquarantine.quarantine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A record's stack trace read back: the text {@link FailureEvidence} keeps in the payload store is
 * {@link Throwable#printStackTrace()}'s, and this gives its cause chain, outermost first, each exception with the type
 * its first line names and its whole stack (the frames {@code printStackTrace} left out as {@code ... n more},
 * shared with the enclosing exception, put back). Suppressed exceptions are skipped: they are not in the cause chain.
 *
 * <p>A text that is not such a trace, or whose chain has a cycle ({@code [CIRCULAR REFERENCE: ...]}), reads as
 * nothing. An exception whose {@code toString()} does not start with its type name (a foreign one that overrides
 * it) reads with a wrong type; whoever uses the chain checks it against what it was computed from (as
 * {@code fingerprints remap} checks the stored fingerprint). Messages are never kept: they may quote document text.
 *
 * @param chain the cause chain, outermost first, never empty
 */
public record StoredTrace(List<Cause> chain) {

    /**
     * One exception of the chain.
     *
     * @param type the type name its line starts with ({@code Class.getName()}; for a worker's
     *     {@link org.ingestquarantine.failure.RemoteCause} the original exception's)
     * @param frames its stack, innermost first
     */
    public record Cause(String type, List<StackTraceElement> frames) {
        public Cause {
            frames = List.copyOf(frames);
        }
    }

    private static final String CAUSED_BY = "Caused by: ";
    private static final String FRAME = "\tat ";
    private static final Pattern MORE = Pattern.compile("\t\\.\\.\\. \\d{1,9} more");
    private static final Pattern TYPE = Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*");
    private static final Pattern FILE_LINE = Pattern.compile("(.+):(\\d{1,9})");
    private static final Pattern HIDDEN_CLASS_SUFFIX = Pattern.compile("0x[0-9a-fA-F]+");

    public StoredTrace {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a cause chain has at least one exception");
        }
    }

    /** @return the innermost exception, the root cause */
    public Cause root() {
        return chain.get(chain.size() - 1);
    }

    /**
     * @param text a stack trace as {@link Throwable#printStackTrace()} prints it
     * @return its cause chain, or empty when the text is not such a trace or its chain has a cycle
     */
    public static Optional<StoredTrace> parse(String text) {
        List<Cause> chain = new ArrayList<>();
        String type = null;
        List<StackTraceElement> frames = new ArrayList<>();
        boolean inFrames = false;
        boolean inSuppressed = false;
        boolean ended = false;
        for (String line : text.split("\r?\n", -1)) {
            if (type == null) {
                type = typeOf(line);
                if (type == null) {
                    return Optional.empty();
                }
                continue;
            }
            if (line.startsWith(CAUSED_BY)) {
                chain.add(new Cause(type, frames));
                type = typeOf(line.substring(CAUSED_BY.length()));
                if (type == null) {
                    return Optional.empty(); // a cycle's [CIRCULAR REFERENCE: ...], or not a trace
                }
                frames = new ArrayList<>();
                inFrames = false;
                inSuppressed = false;
                ended = false;
            } else if (inSuppressed || line.startsWith("\tSuppressed: ")) {
                inSuppressed = true; // its lines are indented deeper, or "\tCaused by: " for its own causes
            } else if (!ended && line.startsWith(FRAME)) {
                StackTraceElement frame = frameOf(line.substring(FRAME.length()));
                if (frame == null) {
                    return Optional.empty();
                }
                frames.add(frame);
                inFrames = true;
            } else if (!ended && MORE.matcher(line).matches()) {
                int common = Integer.parseInt(line.substring(line.indexOf("... ") + 4, line.lastIndexOf(" more")));
                if (chain.isEmpty() || common > chain.get(chain.size() - 1).frames().size()) {
                    return Optional.empty();
                }
                List<StackTraceElement> enclosing = chain.get(chain.size() - 1).frames();
                frames.addAll(enclosing.subList(enclosing.size() - common, enclosing.size()));
                inFrames = true;
                ended = true;
            } else if (inFrames && !line.isEmpty()) {
                return Optional.empty();
            }
            // else: a message of several lines (before the first frame), or the text's last line break
        }
        if (type == null) {
            return Optional.empty();
        }
        chain.add(new Cause(type, frames));
        return Optional.of(new StoredTrace(chain));
    }

    /** @return the type name a {@code Throwable.toString()} line starts with, or null when it names none */
    private static String typeOf(String line) {
        int colon = line.indexOf(": ");
        String name = colon < 0 ? line : line.substring(0, colon);
        return TYPE.matcher(name).matches() ? name : null;
    }

    /**
     * @param text a {@link StackTraceElement#toString()}: {@code [loader/][module[@version]/]class.method(location)}
     * @return the frame (class, method, file and line), or null when the text is not one
     */
    static StackTraceElement frameOf(String text) {
        int open = text.indexOf('(');
        if (open < 0 || !text.endsWith(")")) {
            return null;
        }
        String head = text.substring(0, open);
        int dot = head.lastIndexOf('.');
        if (dot <= 0 || dot == head.length() - 1) {
            return null;
        }
        String method = head.substring(dot + 1);
        String[] parts = head.substring(0, dot).split("/", -1);
        // a hidden class (a lambda's) is named Outer$$Lambda$14/0x0000000800c41a38
        boolean hidden = parts.length >= 2 && HIDDEN_CLASS_SUFFIX.matcher(parts[parts.length - 1]).matches();
        String className = hidden ? parts[parts.length - 2] + "/" + parts[parts.length - 1] : parts[parts.length - 1];
        if (className.isEmpty()) {
            return null;
        }
        String location = text.substring(open + 1, text.length() - 1);
        Matcher fileLine = FILE_LINE.matcher(location);
        if (fileLine.matches()) {
            return new StackTraceElement(className, method, fileLine.group(1), Integer.parseInt(fileLine.group(2)));
        }
        if ("Native Method".equals(location)) {
            return new StackTraceElement(className, method, null, -2);
        }
        return new StackTraceElement(className, method, "Unknown Source".equals(location) ? null : location, -1);
    }
}
