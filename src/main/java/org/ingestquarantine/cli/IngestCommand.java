package org.ingestquarantine.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker.RouteFault;
import org.ingestquarantine.delivery.FailureStorm;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.delivery.SettledOutcomes;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.FolderDocIds;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceRoots;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.RecordKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ingest <folder>}: configures the folder as its source's only root ({@code sources.<name>.file-roots}),
 * publishes one message per file of the folder (recursively, in name order),
 * consumes until every message has an outcome, and prints a summary. Exit code 0 when every message was
 * settled (indexed, unchanged, skipped by a route's policy or quarantined), 3 when some were not within
 * {@code --timeout-s} or were abandoned (a route ended the delivery without an outcome: a route bug), 2 for bad
 * arguments, {@value #PIPELINE_FAULT_EXIT} when a fault of our own route held the consumer
 * ({@link ConsumerCircuitBreaker#routeFault}: a route file is wrong whatever the document): it stops consuming at
 * once (waiting would only cost one delivery per hold), prints the summary with the fault and one line on stderr;
 * {@value #STORM_PAUSED_EXIT} when the failure-storm breaker paused the source ({@link FailureStorm}: one fingerprint new
 * to it failing a share of its deliveries): it stops consuming at once, the documents not yet settled stay queued for
 * the next run after {@code storm resume}, and it prints the summary and one line on stderr naming the command.
 *
 * <p>SIGTERM or Ctrl-C (SIGINT) stops the run early, in order: no new delivery starts, the documents in
 * flight finish within {@code camel.main.shutdown-timeout} or are released (their attempts closed, their
 * messages handed back to the broker: the embedded queue keeps them for the next run), the summary is printed
 * with the documents still unsettled, then the broker and the database stop. Exit code as above (3 when some
 * are unsettled).
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = "Ingest every file of a folder and print a summary of the outcomes.")
final class IngestCommand implements Callable<Integer> {

    /** How long the broker queue must stay empty, with messages still unsettled, before giving up on them. */
    static final Duration QUIET_LIMIT = Duration.ofSeconds(15);

    /** Exit code of a run a fault of our own route stopped. */
    static final int PIPELINE_FAULT_EXIT = 4;

    /** Exit code of a run whose source the failure-storm breaker paused. */
    static final int STORM_PAUSED_EXIT = 5;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Parameters(index = "0", paramLabel = "FOLDER", description = "Folder whose files are ingested.")
    Path folder;

    @Option(names = "--source", description = "Source name recorded with every document (default: the folder's name).")
    String source;

    @Option(names = "--json", description = "Print the summary as one JSON object.")
    boolean json;

    @Option(names = "--timeout-s", defaultValue = "1800", description = "Seconds to wait for every outcome (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /**
     * @return why the folder and the data folder may not be used together (the data folder, its database,
     *         queue and object files, inside the folder would be read as documents, and the folder inside the data
     *         folder is the product's own files), or null when they are apart
     */
    static String overlap(Path folder, Path dataDir) {
        Path f = real(folder);
        Path d = real(dataDir);
        if (d.startsWith(f)) {
            return "the data folder " + dataDir + " is " + (d.equals(f) ? "the folder " : "inside the folder ")
                    + folder + " being ingested: its database, queue and object files would be read as documents";
        }
        if (f.startsWith(d)) {
            return "the folder " + folder + " is inside the data folder " + dataDir
                    + " (the product's own database, queue and object files)";
        }
        return null;
    }

    /** @return the path with symbolic links resolved where it exists, else absolute and normalized */
    private static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        try {
            return abs.toRealPath();
        } catch (java.io.IOException e) {
            Path parent = abs.getParent();
            return parent == null || parent.equals(abs) ? abs : real(parent).resolve(abs.getFileName());
        }
    }

    /**
     * @return why {@code name} cannot name a source (the message schema's rules, or the name reserved for
     *     unreadable messages), or null if it can
     */
    private static String refusedSource(String name) {
        if (RecordKey.isReservedSource(name)) {
            return "'" + name + "' is reserved: source names beginning with " + RecordKey.RESERVED_SOURCE_PREFIX
                    + " name what the consumer keeps apart (" + RecordKey.INVALID_MESSAGES_SOURCE + ")";
        }
        try {
            IngestMessage.checkSource(name);
            return null;
        } catch (org.ingestquarantine.pipeline.InvalidIdentityException e) {
            return e.getMessage();
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (!common.check("ingest", err)) {
            return 2;
        }
        if (!Files.isDirectory(folder)) {
            err.println("ingest: " + folder + " is not a folder (it does not exist, or is a file);"
                    + " try 'ingest-quarantine ingest --help' for usage");
            return 2;
        }
        Path root = folder.toAbsolutePath().normalize();
        String overlap = overlap(root, common.dataDir);
        if (overlap != null) {
            err.println("ingest: " + overlap + "; give a --data-dir outside the folder;"
                    + " try 'ingest-quarantine ingest --help' for usage");
            return 2;
        }
        String sourceName = source != null ? source : root.getFileName() == null ? "local" : root.getFileName().toString();
        String refused = refusedSource(sourceName);
        if (refused != null) {
            err.println("ingest: " + (source != null ? "--source" : "the folder's name, the default source,") + " "
                    + refused + "; give a valid --source; try 'ingest-quarantine ingest --help' for usage");
            return 2;
        }
        List<Path> files = listFiles(root);
        long started = System.nanoTime();
        // the folder is the source's one root: its files may be read, nothing else (DESIGN.md §9)
        Map<String, String> roots = Map.of(SourceAccess.PREFIX + sourceName + ".file-roots", root.toString());
        CountDownLatch stop = new CountDownLatch(1);
        PipelineApp.onStopSignal(stop::countDown);
        try (PipelineApp app = PipelineApp.start(common.profile, common.dataDir, roots);
             SettledOutcomes settled = SettledOutcomes.listen(app.context())) {
            long startupMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
            // the folder's file count is the source's total: coverage's known denominator
            app.bean("sourceTotals", SourceTotals.class).record(sourceName, files.size(), FolderConnector.VERSION,
                    root.toUri());
            // ...and the folder its only root, so a later drain of this source (another process) reads here too
            new SourceRoots(app.bean("dataSource", javax.sql.DataSource.class), java.time.Clock.systemUTC())
                    .record(sourceName, root, SourceRoots.INGEST_COMMAND);
            IngestPublisher publisher = app.bean("ingestPublisher", IngestPublisher.class);
            Map<String, String> keys = new LinkedHashMap<>();
            for (Path file : files) {
                String docId = FolderDocIds.of(root, file); // lossless: two names never share a doc_id
                IngestMessage message = new IngestMessage(sourceName, docId, file.toUri(), null, null, null);
                keys.put(publisher.publish(message), docId);
            }
            ConsumerCircuitBreaker breaker = app.bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            FailureStorm storm = app.bean("failureStorm", FailureStorm.class);
            List<String> unsettled = awaitOutcomes(keys, settled, publisher, stop,
                    () -> breaker.routeFault().isPresent() || storm.pauseOf(sourceName).isPresent());
            RouteFault fault = breaker.routeFault().orElse(null);
            SourcePauses.Pause pause = fault != null ? null : storm.pauseOf(sourceName).orElse(null);
            if (stop.getCount() == 0 || fault != null || pause != null) {
                err.println(fault != null ? "ingest: pipeline fault at " + fault.describe()
                        + "; nothing quarantined for it, documents released; fix the route file and run again"
                        : pause != null ? "ingest: failure storm: source " + sourceName + " paused for fingerprint "
                        + pause.fingerprint() + " (" + pause.errorClass() + "/" + pause.reasonCode() + ", "
                        + pause.percent() + "% of " + pause.deliveries() + " deliveries); the documents not settled stay"
                        + " queued, not quarantined; fix the cause, run 'ingest-quarantine storm resume --source "
                        + sourceName + "' and ingest again"
                        : "ingest: stopping (signal); documents in flight finish or are handed back");
                app.stopConsuming();
                unsettled = unsettled.stream().filter(k -> settled.outcomeOf(k) == null).toList();
            }
            long elapsedMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
            RunSummary summary = RunSummary.collect(app, sourceName, keys, settled::outcomeOf, unsettled, elapsedMs,
                    startupMs, fault);
            spec.commandLine().getOut().println(json ? summary.toJson() : summary.toText());
            return fault != null ? PIPELINE_FAULT_EXIT : pause != null ? STORM_PAUSED_EXIT
                    : unsettled.isEmpty() && summary.abandoned().isEmpty() ? 0 : 3;
        }
    }

    /**
     * @return the keys still unsettled when all settled, the time ran out, a signal came, or {@code halted} (a route
     *     fault holds, the source is paused)
     */
    private List<String> awaitOutcomes(Map<String, String> keys, SettledOutcomes settled, IngestPublisher publisher,
                                       CountDownLatch stop, java.util.function.BooleanSupplier halted)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        long quietSince = -1;
        while (true) {
            List<String> open = new ArrayList<>();
            for (String key : keys.keySet()) {
                if (settled.outcomeOf(key) == null) {
                    open.add(key);
                }
            }
            if (open.isEmpty() || System.nanoTime() > deadline || halted.getAsBoolean()) {
                return open;
            }
            // messages the broker dead-lettered on its own never settle here: stop once the queue stays empty
            if (publisher.pending() == 0) {
                quietSince = quietSince < 0 ? System.nanoTime() : quietSince;
                if (System.nanoTime() - quietSince > QUIET_LIMIT.toNanos()) {
                    return open;
                }
            } else {
                quietSince = -1;
            }
            if (stop.await(200, TimeUnit.MILLISECONDS)) {
                return open;
            }
        }
    }

    private static List<Path> listFiles(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> !Files.isDirectory(p)).sorted().toList();
        }
    }
}
