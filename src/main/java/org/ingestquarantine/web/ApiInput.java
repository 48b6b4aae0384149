package org.ingestquarantine.web;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.ingestquarantine.operator.ActionChannel;
import org.ingestquarantine.operator.Actor;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.operator.OperatorLabels;

/**
 * What an {@link OperatorApi} request says: its query parameters, JSON body, URL-encoded names, the actor of an
 * action, its method. Input that cannot be right is a {@link BadOperatorInputException} (400); a wrong method a
 * {@link MethodNotAllowed} (405). No name, fingerprint or label the API takes may hold a control character.
 */
final class ApiInput {

    private ApiInput() {
    }

    /** The request's method is not the route's (405). */
    static final class MethodNotAllowed extends RuntimeException {
        MethodNotAllowed(String message) {
            super(message);
        }
    }

    /** @throws MethodNotAllowed if the request's method is not {@code method} */
    static void requireMethod(HttpAsk x, String method) {
        if (!method.equals(x.method())) {
            throw new MethodNotAllowed(x.method() + " is not allowed here; use " + method);
        }
    }

    /** @return the query's parameters, names and values decoded and printable */
    static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                String key = name(pair.substring(0, eq), "a query parameter's name");
                q.put(key, name(pair.substring(eq + 1), "query parameter " + key));
            }
        }
        return q;
    }

    /** @return the request's body as JSON */
    static JsonNode body(HttpAsk x) {
        try {
            return OperatorJson.MAPPER.readTree(x.body());
        } catch (IOException e) {
            throw new BadOperatorInputException("the body is not JSON");
        }
    }

    /** @return the actor the body states, through the channel it states ({@code api} unless {@code page}) */
    static Actor actor(JsonNode body) {
        String channel = text(body, "channel");
        if (channel != null && !channel.equals(ActionChannel.API.code()) && !channel.equals(ActionChannel.PAGE.code())) {
            throw new BadOperatorInputException("channel must be " + ActionChannel.API.code() + " or "
                    + ActionChannel.PAGE.code() + " (or left out: " + ActionChannel.API.code() + ")");
        }
        return new Actor(text(body, "actor"), ActionChannel.PAGE.code().equals(channel) ? ActionChannel.PAGE
                : ActionChannel.API);
    }

    /** @return the body's whole number {@code field}, or null when it has none */
    static Integer whole(JsonNode body, String field) {
        JsonNode v = body == null ? null : body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new BadOperatorInputException(field + " must be a whole number");
        }
        return v.intValue();
    }

    /** @return the body's text {@code field}, printable, or null when it has none */
    static String text(JsonNode body, String field) {
        JsonNode v = body == null ? null : body.get(field);
        return v == null || v.isNull() ? null : printableOnly(v.asText(), "\"" + field + "\"");
    }

    /**
     * @param raw the URL-encoded reference after {@code /api/records/}
     * @return it decoded
     * @throws BadOperatorInputException (400) if it is empty or not valid URL encoding
     */
    static String recordRef(String raw) {
        if (raw.isEmpty()) {
            throw new BadOperatorInputException("name a record: /api/records/<dlq_id | source/doc_id>");
        }
        return decode(raw, "the record reference");
    }

    /** @return {@code raw} decoded, printable ({@link #printableOnly}) */
    static String name(String raw, String what) {
        return printableOnly(decode(raw, what), what);
    }

    /** @return a query parameter's whole number, or null when it has none */
    static Integer integer(String value, String name) {
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
            throw new BadOperatorInputException(name + " must be a whole number");
        }
    }

    private static String decode(String raw, String what) {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadOperatorInputException(what + " is not valid URL encoding (a % must be followed by two hex"
                    + " digits, e.g. %2F for /)");
        }
    }

    /**
     * @return {@code value}
     * @throws BadOperatorInputException (400) if it holds a control character (a NUL, a newline...): no name,
     *     fingerprint or label the API takes has one, and PostgreSQL cannot even hold a NUL
     */
    private static String printableOnly(String value, String what) {
        if (!value.equals(OperatorLabels.printable(value))) {
            throw new BadOperatorInputException(what + " holds a control character (e.g. %00 or a newline); names,"
                    + " fingerprints and labels are printable text");
        }
        return value;
    }
}
