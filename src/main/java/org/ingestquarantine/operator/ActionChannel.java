package org.ingestquarantine.operator;

import java.util.Locale;

/**
 * The way an operator's bulk action came, as its trail entry names it ({@code operator_actions.channel}): the
 * commands, the HTTP API, or the operator page (which calls the API and says so).
 */
public enum ActionChannel {
    CLI, API, PAGE;

    /** @return the name stored and shown, e.g. {@code page} */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
