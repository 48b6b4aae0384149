package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.operator.BadOperatorInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sources count S} and {@code sources set-total S N}: a source's total, coverage's denominator, for a source
 * fed through {@code run}; {@code sources purge-unconfigured}: the records of sources no operator named, moved
 * under {@value org.ingestquarantine.pipeline.RecordKey#INVALID_MESSAGES_SOURCE}. Listing suits a folder source (and an S3 one); a stated total an HTTP or producer-owned
 * source, which cannot be listed. Exit codes as every operator command's ({@link OperatorCommand}).
 */
@Command(name = "sources", mixinStandardHelpOptions = true,
        description = {"A source's total (coverage's denominator) for sources fed through run: list it now, or state it.",
                "Listing suits folder and S3 sources (sources.<name>.file-roots, .s3-allow); stating suits HTTP or"
                        + " producer-owned sources."},
        subcommands = {SourcesCommand.Count.class, SourcesCommand.SetTotal.class, SourcesCommand.PurgeUnconfigured.class,
                SourcesCommand.SyncOwners.class})
final class SourcesCommand {

    /** {@code sources count S}. */
    @Command(name = "count", mixinStandardHelpOptions = true,
            description = {"Lists the source's configured roots now (a walk of sources.<name>.file-roots: regular files,"
                    + " no symbolic link followed; a ListObjectsV2 over each sources.<name>.s3-allow entry; at most"
                    + " sources.count-max-documents) and records the count as its"
                    + " total (listed). run does the same every sources.count-interval-ms when that is more than 0.",
                    "Exit 2, nothing written, for an unknown source or one without roots to list; 1 when a root"
                            + " cannot be read."})
    static final class Count extends OperatorCommand {

        @Parameters(index = "0", paramLabel = "S", description = "The source.")
        String source;

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            SourceTotals.Total t = runtime.sourceCounts().count(source);
            print(out, t, describe(t));
            return 0;
        }
    }

    /** {@code sources set-total S N}. */
    @Command(name = "set-total", mixinStandardHelpOptions = true,
            description = {"Records N, stated by whoever knows it (the producer, the operator), as the source's total"
                    + " (stated, by this user); it replaces the last total, however obtained, until the next listing"
                    + " or statement.",
                    "Exit 2, nothing written, for an unknown source or a negative N."})
    static final class SetTotal extends OperatorCommand {

        @Parameters(index = "0", paramLabel = "S", description = "The source.")
        String source;

        @Parameters(index = "1", paramLabel = "N", description = "Documents the source holds, 0 or more.")
        long documents;

        @Override
        void validate() {
            if (documents < 0) {
                throw new BadOperatorInputException("N is the documents the source holds, 0 or more, not " + documents);
            }
        }

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            SourceTotals.Total t = runtime.sourceCounts().state(source, documents, System.getProperty("user.name"));
            print(out, t, describe(t));
            return 0;
        }
    }

    /** {@code sources purge-unconfigured [--confirm]}. */
    @Command(name = "purge-unconfigured", mixinStandardHelpOptions = true,
            description = {"Lists the sources the quarantine's records name that no operator named: not configured"
                    + " here (sources.<name>.*), no total, no root an ingest recorded, no indexed document, not"
                    + " reserved (_...). Versions before this one recorded a message naming such a source under it,"
                    + " so producers chose rows and metric series.",
                    "With --confirm, moves each of their records under _invalid_messages (doc_id purged/<dlq_id>),"
                            + " in one transaction: attempts, error, payload and stack trace stay; nothing is deleted."
                            + " Run it with the consumer's configuration.",
                    "Exit 2, nothing written, when this configuration names no source."})
    static final class PurgeUnconfigured extends OperatorCommand {

        @picocli.CommandLine.Option(names = "--confirm",
                description = "Move the records listed; without it, only list them.")
        boolean confirm;

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            java.util.Set<String> configured = runtime.configuredSources();
            java.util.Map<String, Long> found = runtime.unconfiguredSources().find(configured);
            long records = found.values().stream().mapToLong(Long::longValue).sum();
            int moved = confirm ? runtime.unconfiguredSources().purge(configured) : 0;
            StringBuilder text = new StringBuilder();
            found.forEach((source, n) -> text.append(org.ingestquarantine.pipeline.LogSafe.identity(source))
                    .append('\t').append(n).append('\n'));
            text.append(found.size()).append(" unconfigured sources, ").append(records).append(" records; ")
                    .append(confirm ? moved + " records moved under " + org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE
                            : "nothing changed (add --confirm to move them under "
                            + org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE + ")");
            print(out, java.util.Map.of("sources", found, "records", records, "moved", moved, "confirmed", confirm),
                    text.toString());
            return 0;
        }
    }

    /** {@code sources sync-owners}. */
    @Command(name = "sync-owners", mixinStandardHelpOptions = true,
            description = {"Gives every OPEN record of a source the owner configured now (sources.<name>.owner): the"
                    + " write path names the owner when it creates a record, so an owner set later reaches the backlog"
                    + " only through this. Prints how many records changed per source.",
                    "Closed records keep their owner, among them those an operator disposed with --owner; a source"
                            + " without a configured owner is left as it is."})
    static final class SyncOwners extends OperatorCommand {

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            java.util.SortedMap<String, String> owners = runtime.configuredOwners();
            java.util.SortedMap<String, Integer> changed =
                    new org.ingestquarantine.operator.OwnerSync(runtime.database().dataSource()).sync(owners);
            StringBuilder text = new StringBuilder();
            changed.forEach((source, n) -> text.append(source).append('\t').append(owners.get(source)).append('\t')
                    .append(n).append('\n'));
            text.append(changed.values().stream().mapToInt(Integer::intValue).sum()).append(" open records given their"
                    + " source's configured owner (").append(owners.size()).append(" sources with an owner configured)");
            print(out, java.util.Map.of("changed", changed, "owners", owners), text.toString());
            return 0;
        }
    }

    /** @return one line: the source, its total, how, when and by whom */
    static String describe(SourceTotals.Total t) {
        return "source '" + t.source() + "': total " + t.documents() + " documents, " + t.obtainedBy() + " at "
                + OperatorCommand.time(t.countedAt()) + " by " + t.countedBy();
    }
}
