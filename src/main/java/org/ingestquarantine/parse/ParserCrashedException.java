package org.ingestquarantine.parse;

/**
 * The worker JVM parsing the document died or was killed, so nothing is known about the document except
 * that it costs more than the limits allow. Reasons: {@value #HEAP_LIMIT} (the worker ran out of its
 * {@code parse.max-heap-mb} heap), {@value #TIME_LIMIT} (killed after {@code parse.timeout-ms}),
 * {@value #WORKER_CRASH} (the worker exited or broke the protocol for any other reason). The worker is
 * replaced before the next document.
 */
public final class ParserCrashedException extends ParseException {

    /** The worker ran out of heap and exited. */
    public static final String HEAP_LIMIT = "heap_limit";
    /** The worker was killed from outside for exceeding the wall-clock limit. */
    public static final String TIME_LIMIT = "time_limit";
    /** The worker died or stopped speaking the protocol for another reason. */
    public static final String WORKER_CRASH = "worker_crash";

    ParserCrashedException(String reasonCode, String message, Throwable cause) {
        super(reasonCode, message, cause);
    }
}
