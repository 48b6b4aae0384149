package org.ingestquarantine.parse;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses PDFs in a pool of pre-started worker JVMs, so that a document that exhausts memory, time or the
 * JVM itself takes down only its worker, never the caller's JVM.
 *
 * <p>Each worker ({@link WorkerMain}) runs {@link InProcessPdfParser} with the same java binary and
 * classpath as this JVM, {@code -Xmx} from {@link ParseLimits#maxHeapMb()} and
 * {@code -XX:+ExitOnOutOfMemoryError}. A worker holds exactly one document at a time, so a death names its
 * document. The parent enforces {@link ParseLimits#timeout()} and kills a late worker from outside. A
 * worker that died is replaced in the background and the document fails with
 * {@link ParserCrashedException}: reason {@code heap_limit} (exit status
 * {@value WorkerProcess#EXIT_OUT_OF_MEMORY}), {@code time_limit} (killed at the deadline) or
 * {@code worker_crash} (anything else). Other failures arrive as the same {@link ParseException} subclass
 * the worker threw, caused by an {@link org.ingestquarantine.failure.RemoteCause}.
 *
 * <p>Thread-safe: callers block until a worker is free. The workers' stderr is discarded, because
 * PDFBox's warnings can quote document bytes.
 */
public final class WorkerPoolParser implements DocumentParser {

    /**
     * System property naming the main class through which worker JVMs start {@link WorkerMain}, handed to it
     * as {@code -Dloader.main}: needed when the class path is one executable archive whose classes sit in
     * nested jars (Spring Boot's {@code org.springframework.boot.loader.launch.PropertiesLauncher}; the Boot
     * module sets it). Unset (the default): the workers run {@link WorkerMain} directly.
     */
    public static final String WORKER_LAUNCHER_PROPERTY = "iq.parse.worker-launcher";

    /**
     * System property naming the worker JVMs' class-data-sharing archive (the launcher sets
     * {@code target/parse-worker.jsa}): when the file exists, workers map their classes from it instead of
     * loading and verifying them (start-up CPU); when it does not, the first worker this JVM starts writes the
     * classes it loaded to {@code <archive>.tmp.<this JVM's pid>} at its exit, which the launcher checks and
     * renames for the next run. Unset (the default): no archive.
     */
    public static final String WORKER_CDS_PROPERTY = "iq.parse.worker-cds-archive";

    /** How long a new worker JVM may take to report ready, in seconds. */
    public static final long STARTUP_TIMEOUT_SECONDS = 60;
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(STARTUP_TIMEOUT_SECONDS);
    private static final Duration RESTART_BACKOFF = Duration.ofSeconds(1);
    private static final long POLL_MILLIS = 200;

    private static final Logger LOG = LoggerFactory.getLogger(WorkerPoolParser.class);

    private final ParseLimits limits;
    private final BlockingQueue<WorkerProcess> idle = new LinkedBlockingQueue<>();
    private final Set<WorkerProcess> workers = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor watchdog = new ScheduledThreadPoolExecutor(1, daemon("parse-watchdog"));
    private final ExecutorService starter = Executors.newCachedThreadPool(daemon("parse-worker-starter"));
    private volatile boolean closed;

    /**
     * Starts {@link ParseLimits#poolSize()} workers and waits until all are ready.
     *
     * @throws IllegalStateException a worker could not be started within {@value #STARTUP_TIMEOUT_SECONDS} s
     */
    public WorkerPoolParser(ParseLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        watchdog.setRemoveOnCancelPolicy(true); // one deadline per document, almost all cancelled
        List<WorkerProcess> started = new ArrayList<>();
        try {
            for (int i = 0; i < limits.poolSize(); i++) {
                WorkerProcess worker = WorkerProcess.start(limits);
                started.add(worker);
                workers.add(worker);
            }
            for (WorkerProcess worker : started) {
                worker.awaitReady(STARTUP_TIMEOUT, watchdog);
                idle.add(worker);
            }
        } catch (java.io.IOException e) {
            close();
            throw new IllegalStateException("cannot start parser workers; check that the JVM can start processes "
                    + "with " + ParseLimits.PROPERTY_MAX_HEAP_MB + "=" + limits.maxHeapMb(), e);
        }
    }

    /** A pool with {@link ParseLimits#defaults()}. */
    public WorkerPoolParser() {
        this(ParseLimits.defaults());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException the pool is closed, the caller was interrupted while waiting for a
     *     worker, or the worker failed in a way that is not a {@link ParseException}
     */
    @Override
    public ParsedDocument parse(Path pdf) throws ParseException {
        WorkerProcess worker = take();
        boolean healthy = false;
        try {
            ParsedDocument document = worker.parse(pdf, limits.timeout(), watchdog);
            healthy = true;
            return document;
        } catch (ParserCrashedException e) {
            LOG.warn("parser worker pid {} died: {}", worker.pid(), e.reasonCode());
            throw e;
        } catch (ParseException | IllegalStateException e) {
            healthy = true;
            throw e;
        } finally {
            release(worker, healthy);
        }
    }

    private WorkerProcess take() {
        try {
            while (!closed) {
                WorkerProcess worker = idle.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (worker != null) {
                    return worker;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a free parser worker", e);
        }
        throw new IllegalStateException("the parser pool is closed");
    }

    private void release(WorkerProcess worker, boolean healthy) {
        if (healthy && worker.isUsable() && !closed) {
            idle.add(worker);
            return;
        }
        workers.remove(worker);
        starter.execute(worker::destroy);
        if (!closed) {
            starter.execute(this::startReplacement);
        }
    }

    /** Starts a worker to replace a dead one, retrying until it succeeds or the pool closes. */
    private void startReplacement() {
        while (!closed) {
            WorkerProcess worker = null;
            try {
                worker = WorkerProcess.start(limits);
                workers.add(worker);
                worker.awaitReady(STARTUP_TIMEOUT, watchdog);
                idle.add(worker);
                if (closed) {
                    worker.destroy();
                }
                return;
            } catch (java.io.IOException | RuntimeException e) {
                if (worker != null) {
                    workers.remove(worker);
                    worker.destroy();
                }
                if (closed) {
                    return;
                }
                LOG.error("cannot start a replacement parser worker; retrying in {} ms", RESTART_BACKOFF.toMillis(), e);
                sleep(RESTART_BACKOFF);
            }
        }
    }

    /**
     * The pool at one moment, for health reports.
     *
     * @param size workers configured ({@link ParseLimits#poolSize()})
     * @param alive workers alive or starting (a dead one is replaced in the background)
     * @param idle workers waiting for a document
     * @param closed whether the pool has been closed
     */
    public record PoolState(int size, int alive, int idle, boolean closed) {
    }

    /** @return the pool's state now; reads counters only, never waits */
    public PoolState state() {
        return new PoolState(limits.poolSize(), workers.size(), idle.size(), closed);
    }

    /** @return how many workers are alive or starting; for tests and metrics */
    int workerCount() {
        return workers.size();
    }

    /** @return the process ids of the live workers; for tests */
    Set<Long> workerPids() {
        Set<Long> pids = ConcurrentHashMap.newKeySet();
        workers.forEach(w -> pids.add(w.pid()));
        return pids;
    }

    @Override
    public void close() {
        closed = true;
        for (WorkerProcess worker : workers) {
            worker.close();
        }
        workers.clear();
        idle.clear();
        watchdog.shutdownNow();
        starter.shutdown();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
