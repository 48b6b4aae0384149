package org.ingestquarantine.parse;

import java.time.Duration;
import java.util.Objects;

/**
 * Every limit of the parse stage, each default stated once in a constant below. Immutable; start from
 * {@link #defaults()} and change single values with the {@code with...} methods.
 *
 * @param maxHeapMb heap of each worker JVM in MiB ({@code -Xmx}); property {@value #PROPERTY_MAX_HEAP_MB},
 *     default {@value #DEFAULT_MAX_HEAP_MB}; must be at least {@value #MIN_HEAP_MB}. Exceeding it ends the
 *     worker: {@link ParserCrashedException} reason {@code heap_limit}
 * @param timeout wall-clock time one document may take in a worker, measured and enforced by the parent;
 *     property {@value #PROPERTY_TIMEOUT_MS} (milliseconds), default {@link #DEFAULT_TIMEOUT} (60 s); must
 *     be positive. Exceeding it kills the worker: {@link ParserCrashedException} reason {@code time_limit}
 * @param poolSize number of pre-started worker JVMs, and so of documents parsed at once; property
 *     {@value #PROPERTY_POOL_SIZE}, default {@value #DEFAULT_POOL_SIZE}; must be at least 1
 * @param maxPages most real pages (found by walking the page tree) a document may have; property
 *     {@value #PROPERTY_MAX_PAGES}, default {@value #DEFAULT_MAX_PAGES}; must be at least 1
 * @param maxStreamBytes most bytes one content, form or font stream may decode to; property
 *     {@value #PROPERTY_MAX_STREAM_BYTES}, default {@value #DEFAULT_MAX_STREAM_BYTES} (256 MiB); must be
 *     positive
 * @param maxImagePixels most pixels (declared width times height) one image XObject may have; property
 *     {@value #PROPERTY_MAX_IMAGE_PIXELS}, default {@value #DEFAULT_MAX_IMAGE_PIXELS}; must be positive
 * @param scratchMemoryBytes bytes of heap PDFBox may use to cache decoded streams before it spills to temp
 *     files in {@code java.io.tmpdir}; property {@value #PROPERTY_SCRATCH_MEMORY_BYTES}, default
 *     {@value #DEFAULT_SCRATCH_MEMORY_BYTES} (16 MiB); 0 means temp files only
 */
public record ParseLimits(int maxHeapMb, Duration timeout, int poolSize, int maxPages, long maxStreamBytes,
        long maxImagePixels, long scratchMemoryBytes) {

    public static final String PROPERTY_MAX_HEAP_MB = "parse.max-heap-mb";
    public static final String PROPERTY_TIMEOUT_MS = "parse.timeout-ms";
    public static final String PROPERTY_POOL_SIZE = "parse.pool-size";
    public static final String PROPERTY_MAX_PAGES = "parse.max-pages";
    public static final String PROPERTY_MAX_STREAM_BYTES = "parse.max-stream-bytes";
    public static final String PROPERTY_MAX_IMAGE_PIXELS = "parse.max-image-pixels";
    public static final String PROPERTY_SCRATCH_MEMORY_BYTES = "parse.scratch-memory-bytes";

    /** Default worker heap, MiB. */
    public static final int DEFAULT_MAX_HEAP_MB = 512;
    /** Smallest worker heap a JVM with PDFBox starts with, MiB. */
    public static final int MIN_HEAP_MB = 16;
    /** Default wall-clock limit per document: 60 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** Default number of worker JVMs. */
    public static final int DEFAULT_POOL_SIZE = 2;
    /** Default most pages per document. */
    public static final int DEFAULT_MAX_PAGES = 2000;
    /** Default most decoded bytes per stream: 256 MiB. */
    public static final long DEFAULT_MAX_STREAM_BYTES = 256L * 1024 * 1024;
    /** Default most pixels per image. */
    public static final long DEFAULT_MAX_IMAGE_PIXELS = 100_000_000L;
    /** Default heap for PDFBox's stream cache before temp files: 16 MiB. */
    public static final long DEFAULT_SCRATCH_MEMORY_BYTES = 16L * 1024 * 1024;

    public ParseLimits {
        Objects.requireNonNull(timeout, "timeout");
        require(maxHeapMb >= MIN_HEAP_MB, PROPERTY_MAX_HEAP_MB + " must be at least " + MIN_HEAP_MB + ", was " + maxHeapMb);
        require(!timeout.isNegative() && !timeout.isZero(), PROPERTY_TIMEOUT_MS + " must be positive, was " + timeout);
        require(poolSize >= 1, PROPERTY_POOL_SIZE + " must be at least 1, was " + poolSize);
        require(maxPages >= 1, PROPERTY_MAX_PAGES + " must be at least 1, was " + maxPages);
        require(maxStreamBytes > 0, PROPERTY_MAX_STREAM_BYTES + " must be positive, was " + maxStreamBytes);
        require(maxImagePixels > 0, PROPERTY_MAX_IMAGE_PIXELS + " must be positive, was " + maxImagePixels);
        require(scratchMemoryBytes >= 0, PROPERTY_SCRATCH_MEMORY_BYTES + " must not be negative, was " + scratchMemoryBytes);
    }

    /** @return every limit at its default */
    public static ParseLimits defaults() {
        return new ParseLimits(DEFAULT_MAX_HEAP_MB, DEFAULT_TIMEOUT, DEFAULT_POOL_SIZE, DEFAULT_MAX_PAGES,
                DEFAULT_MAX_STREAM_BYTES, DEFAULT_MAX_IMAGE_PIXELS, DEFAULT_SCRATCH_MEMORY_BYTES);
    }

    public ParseLimits withMaxHeapMb(int value) {
        return new ParseLimits(value, timeout, poolSize, maxPages, maxStreamBytes, maxImagePixels, scratchMemoryBytes);
    }

    public ParseLimits withTimeout(Duration value) {
        return new ParseLimits(maxHeapMb, value, poolSize, maxPages, maxStreamBytes, maxImagePixels, scratchMemoryBytes);
    }

    public ParseLimits withPoolSize(int value) {
        return new ParseLimits(maxHeapMb, timeout, value, maxPages, maxStreamBytes, maxImagePixels, scratchMemoryBytes);
    }

    public ParseLimits withMaxPages(int value) {
        return new ParseLimits(maxHeapMb, timeout, poolSize, value, maxStreamBytes, maxImagePixels, scratchMemoryBytes);
    }

    public ParseLimits withMaxStreamBytes(long value) {
        return new ParseLimits(maxHeapMb, timeout, poolSize, maxPages, value, maxImagePixels, scratchMemoryBytes);
    }

    public ParseLimits withMaxImagePixels(long value) {
        return new ParseLimits(maxHeapMb, timeout, poolSize, maxPages, maxStreamBytes, value, scratchMemoryBytes);
    }

    public ParseLimits withScratchMemoryBytes(long value) {
        return new ParseLimits(maxHeapMb, timeout, poolSize, maxPages, maxStreamBytes, maxImagePixels, value);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
