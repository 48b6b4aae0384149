package org.ingestquarantine.ingest;

import java.util.Locale;

/**
 * The path of an {@code http(s)} URI as a server reads it, for comparing with an {@code http-allow} prefix:
 * percent-encoded unreserved characters decoded ({@code %2e} is {@code .}, {@code %41} is {@code A}), the
 * hex digits of every other escape upper-cased (RFC 3986 §6.2.2), dot segments removed (§5.2.4). A path a
 * server could read as leaving the folder it names is refused outright instead of normalised: one holding an
 * encoded slash or backslash ({@code %2F}, {@code %5C}), which servers decode differently, or a dot segment
 * ({@code .} or {@code ..}, encoded or not, also with a {@code ;parameter} as some servers strip it), since
 * whether a server removes it before or after it decodes is its own affair.
 */
final class HttpPath {

    private static final String UNRESERVED_MARKS = "-._~";

    private HttpPath() {
    }

    /**
     * @param rawPath a URI's raw path, may be {@code null} or empty (read as {@code /})
     * @return the normalised path
     * @throws IllegalArgumentException when the path is refused, saying why
     */
    static String normalise(String rawPath) {
        String path = decodeUnreserved(rawPath == null || rawPath.isEmpty() ? "/" : rawPath);
        if (path.contains("%2F") || path.contains("%5C")) {
            throw new IllegalArgumentException("its path holds an encoded slash or backslash (%2F, %5C)");
        }
        String removed = removeDotSegments(path);
        if (!removed.equals(path) || hasParameterisedDotSegment(path)) {
            throw new IllegalArgumentException("its path holds a dot segment ('.' or '..', encoded or not)");
        }
        return removed;
    }

    /** @return {@code path} with escapes of unreserved characters decoded and other escapes' hex upper-cased */
    static String decodeUnreserved(String path) {
        StringBuilder b = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c != '%') {
                b.append(c);
                continue;
            }
            int value = i + 2 < path.length() ? hex(path.charAt(i + 1), path.charAt(i + 2)) : -1;
            if (value < 0) {
                throw new IllegalArgumentException("its path holds a '%' that starts no escape");
            }
            char decoded = (char) value;
            if (unreserved(decoded)) {
                b.append(decoded);
            } else {
                b.append('%').append(path.substring(i + 1, i + 3).toUpperCase(Locale.ROOT));
            }
            i += 2;
        }
        return b.toString();
    }

    /** RFC 3986 §5.2.4, for an absolute path. */
    static String removeDotSegments(String path) {
        String in = path;
        StringBuilder out = new StringBuilder(path.length());
        while (!in.isEmpty()) {
            if (in.startsWith("../")) {
                in = in.substring(3);
            } else if (in.startsWith("./")) {
                in = in.substring(2);
            } else if (in.startsWith("/./")) {
                in = in.substring(2);
            } else if (in.equals("/.")) {
                in = "/";
            } else if (in.startsWith("/../") || in.equals("/..")) {
                in = "/" + in.substring(in.length() == 3 ? 3 : 4);
                int last = out.lastIndexOf("/");
                out.setLength(Math.max(last, 0));
            } else if (in.equals(".") || in.equals("..")) {
                in = "";
            } else {
                int next = in.indexOf('/', in.startsWith("/") ? 1 : 0);
                int end = next < 0 ? in.length() : next;
                out.append(in, 0, end);
                in = in.substring(end);
            }
        }
        return out.toString();
    }

    /** @return whether a segment is {@code .} or {@code ..} once a {@code ;parameter} is cut off */
    private static boolean hasParameterisedDotSegment(String path) {
        for (String segment : path.split("/", -1)) {
            int semicolon = segment.indexOf(';');
            String name = semicolon < 0 ? segment : segment.substring(0, semicolon);
            if (semicolon >= 0 && (name.equals(".") || name.equals(".."))) {
                return true;
            }
        }
        return false;
    }

    private static boolean unreserved(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || UNRESERVED_MARKS.indexOf(c) >= 0;
    }

    private static int hex(char high, char low) {
        int h = Character.digit(high, 16);
        int l = Character.digit(low, 16);
        return h < 0 || l < 0 ? -1 : h * 16 + l;
    }
}
