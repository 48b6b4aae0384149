package org.ingestquarantine.app;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/**
 * The start-up steps of one application and when each ran, in seconds since this JVM started, logged as one
 * INFO line ({@code start-up steps (s since JVM start): database 1.21-3.40, ...}) when start-up has finished.
 * Steps run in parallel, so they overlap; the line shows which one the start-up waited for last.
 * {@code bench/startup-bench} reads it. Thread-safe.
 */
final class StartupTimeline {

    /** Registry name under which {@link PipelineApp} binds the timeline for {@link AppConfiguration}. */
    static final String BEAN = "startupTimeline";

    private final long jvmStartMillis = ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli)
            .orElse(System.currentTimeMillis());
    private final List<String> steps = new ArrayList<>();

    /**
     * Runs {@code step} in the calling thread, recording when it began and ended.
     *
     * @param name the step's name in the log line
     * @param step the work
     * @param <T> its result's type
     * @return its result
     * @throws Exception as thrown by {@code step} (recorded as ended anyway)
     */
    <T> T time(String name, Callable<T> step) throws Exception {
        long began = System.currentTimeMillis();
        try {
            return step.call();
        } finally {
            record(name, began, System.currentTimeMillis());
        }
    }

    /** Records a step that ran from {@code beganMillis} to {@code endedMillis} (epoch milliseconds). */
    synchronized void record(String name, long beganMillis, long endedMillis) {
        steps.add(String.format(java.util.Locale.ROOT, "%s %.2f-%.2f", name, (beganMillis - jvmStartMillis) / 1000.0,
                (endedMillis - jvmStartMillis) / 1000.0));
    }

    /** Records a moment (a step without duration), e.g. {@code ready}. */
    void mark(String name) {
        long now = System.currentTimeMillis();
        synchronized (this) {
            steps.add(String.format(java.util.Locale.ROOT, "%s %.2f", name, (now - jvmStartMillis) / 1000.0));
        }
    }

    /** Logs the steps recorded so far as one line. */
    synchronized void log() {
        LoggerFactory.getLogger(StartupTimeline.class).info("start-up steps (s since JVM start): {}",
                steps.stream().collect(Collectors.joining(", ")));
    }
}
