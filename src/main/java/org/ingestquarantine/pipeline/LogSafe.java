package org.ingestquarantine.pipeline;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;
import org.apache.commons.text.translate.AggregateTranslator;
import org.apache.commons.text.translate.CharSequenceTranslator;
import org.apache.commons.text.translate.CodePointTranslator;
import org.apache.commons.text.translate.EntityArrays;
import org.apache.commons.text.translate.LookupTranslator;

/**
 * Makes an untrusted identity (source, doc_id, uri) safe for a log line or an error message: at most
 * {@value #MAX_CHARS} characters of it are kept (a longer one ends in {@code …(N chars)}), and backslashes,
 * control characters (C0, DEL, C1), Unicode format characters (bidi overrides, zero-width) and line/paragraph
 * separators are written as Java escapes ({@code \n}, {@code \u001B}), so a value can neither forge a log
 * line, colour a terminal nor flood a log. The escaping uses commons-text's translators.
 */
public final class LogSafe {

    /** Characters of the original value kept in a log line. */
    public static final int MAX_CHARS = 200;

    private static final CharSequenceTranslator ESCAPE = new AggregateTranslator(
            new LookupTranslator(Map.of("\\", "\\\\")),
            new LookupTranslator(EntityArrays.JAVA_CTRL_CHARS_ESCAPE),
            new InvisibleEscaper());

    private LogSafe() {
    }

    /**
     * @param value an untrusted string, may be {@code null}
     * @return its escaped and bounded form; {@code null} as {@code "null"}
     */
    public static String identity(String value) {
        if (value == null) {
            return "null";
        }
        if (value.length() <= MAX_CHARS) {
            return ESCAPE.translate(value);
        }
        int end = Character.isHighSurrogate(value.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
        return ESCAPE.translate(value.substring(0, end)) + "…(" + value.length() + " chars)";
    }

    /** Escapes every code point a terminal or log reader would not show as itself. */
    private static final class InvisibleEscaper extends CodePointTranslator {

        @Override
        public boolean translate(int codePoint, Writer out) throws IOException {
            switch (Character.getType(codePoint)) {
                case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                        Character.SURROGATE -> {
                    out.write(codePoint <= 0xFFFF ? String.format("\\u%04X", codePoint) : String.format("\\u{%X}", codePoint));
                    return true;
                }
                default -> {
                    return false;
                }
            }
        }
    }
}
