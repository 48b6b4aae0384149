package org.ingestquarantine.operator;

import java.util.regex.Pattern;

/**
 * The labels an operator gives (a disposition's {@code --owner} and {@code --reason}): printable text of bounded
 * length, refused otherwise before anything is written, as bad input (exit 2, HTTP 400) and never as a database
 * outage; and how stored text is shown on a terminal: control characters as {@code ?}, never raw.
 */
public final class OperatorLabels {

    /**
     * Most characters of an owner or a reason code: each is part of the key of its records' summary row, and
     * PostgreSQL's btree index holds a key of at most about 2.7 kB; far above any team name or reason code.
     */
    public static final int MAX_CHARS = 200;

    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

    private OperatorLabels() {
    }

    /**
     * @param value the label given
     * @param field the value, named in the words of whoever gave it (an option, or the API's field)
     * @throws BadOperatorInputException if it is blank, longer than {@value #MAX_CHARS} characters, or holds a
     *     control character (a tab, a newline, a NUL...)
     */
    public static void require(String value, OperatorField field) {
        String problem = problem(value);
        if (problem != null) {
            throw new BadOperatorInputException(field, problem);
        }
    }

    /**
     * @param value the label given
     * @param name what gave it, e.g. a setting's name
     * @throws BadOperatorInputException as {@link #require(String, OperatorField)}, naming {@code name}
     */
    public static void require(String value, String name) {
        String problem = problem(value);
        if (problem != null) {
            throw new BadOperatorInputException(name + problem);
        }
    }

    private static String problem(String value) {
        if (value == null || value.isBlank()) {
            return " is required and must not be blank";
        }
        if (value.trim().length() > MAX_CHARS) {
            return " is " + value.trim().length() + " characters long; give at most " + MAX_CHARS;
        }
        if (CONTROL.matcher(value).find()) {
            return " holds a control character (a tab, newline or NUL, e.g.); give printable text";
        }
        return null;
    }

    /**
     * @param text text from the store or the operator, may be null
     * @return it with every control character shown as {@code ?}, for one line on a terminal
     */
    public static String printable(String text) {
        return text == null ? null : CONTROL.matcher(text).replaceAll("?");
    }
}
