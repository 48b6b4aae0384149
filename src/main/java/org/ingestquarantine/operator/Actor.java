package org.ingestquarantine.operator;

import java.util.Objects;

/**
 * Who acts, as the caller states it (the commands' {@code --actor}, by default the user running them; the API's
 * {@code actor}, required), and through which channel. Not an authentication: the API's bearer token is the one
 * check; the actor is what the trail records.
 *
 * @param name printable, at most {@link OperatorLabels#MAX_CHARS} characters, trimmed
 * @param channel the way the action came
 */
public record Actor(String name, ActionChannel channel) {

    /** @throws BadOperatorInputException if the name is missing, blank, too long or holds a control character */
    public Actor {
        OperatorLabels.require(name, OperatorField.ACTOR);
        name = name.trim();
        Objects.requireNonNull(channel, "channel");
    }

    /** @return how a drain run started by this actor names it ({@code drain_runs.started_by}): the name, prefixed by the channel off the command line */
    public String startedBy() {
        return channel == ActionChannel.CLI ? name : channel.code() + ":" + name;
    }
}
