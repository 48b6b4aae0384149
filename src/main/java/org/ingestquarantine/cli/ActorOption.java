package org.ingestquarantine.cli;

import org.ingestquarantine.operator.ActionChannel;
import org.ingestquarantine.operator.Actor;
import picocli.CommandLine.Option;

/** {@code --actor NAME} of the commands that act on a selection (dispose, drain): who the actions trail records. */
final class ActorOption {

    @Option(names = "--actor", paramLabel = "NAME",
            description = "Who acts, as the actions trail records it (default: the user running the command).")
    String name;

    /**
     * @return the actor, on the command line
     * @throws org.ingestquarantine.operator.BadOperatorInputException if the name is blank, too long or not
     *     printable
     */
    Actor actor() {
        return new Actor(name != null ? name : System.getProperty("user.name", "unknown"), ActionChannel.CLI);
    }
}
