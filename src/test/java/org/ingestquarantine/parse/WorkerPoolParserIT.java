package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.RemoteCause;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the worker pool gives the in-process results, rebuilds failures faithfully and survives deaths. */
class WorkerPoolParserIT {

    @TempDir
    static Path folder;

    @BeforeAll
    static void writeSamples() throws Exception {
        SampleSet.write(folder);
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class WithDefaultLimits {

        private WorkerPoolParser pool;

        @BeforeAll
        void startPool() {
            pool = new WorkerPoolParser(ParseLimits.defaults());
        }

        @AfterAll
        void closePool() {
            pool.close();
        }

        @Test
        void shouldGiveTheSameResultAsInProcess() throws Exception {
            InProcessPdfParser inProcess = new InProcessPdfParser();
            for (SampleSet.Sample sample : SampleSet.SAMPLES) {
                Path pdf = folder.resolve(sample.fileName());
                assertThat(Outcome.of(pool, pdf)).as(sample.fileName()).isEqualTo(sample.expected());
                if (sample.expected().equals(SampleSet.INDEXED)) {
                    assertThat(pool.parse(pdf)).as(sample.fileName()).isEqualTo(inProcess.parse(pdf));
                }
            }
        }

        @Test
        void shouldRebuildFailuresWithTheInProcessFingerprint() {
            for (String name : List.of("08-truncated.pdf", "06-encrypted-user-password.pdf", "09-not-pdf-html.pdf",
                    "07-image-only-no-text-layer.pdf", "13-hostile-image-100000x100000.pdf")) {
                Path pdf = folder.resolve(name);
                ParseException local = catchThrowableOfType(ParseException.class, () -> new InProcessPdfParser().parse(pdf));
                ParseException remote = catchThrowableOfType(ParseException.class, () -> pool.parse(pdf));
                assertThat(remote).as(name).isExactlyInstanceOf(local.getClass());
                assertThat(remote.reasonCode()).isEqualTo(local.reasonCode());
                assertThat(remote.getMessage()).isEqualTo(local.getMessage());
                assertThat(remote.getCause()).isInstanceOf(RemoteCause.class);
                assertThat(fingerprint(remote)).as(name).isEqualTo(fingerprint(local));
            }
        }

        @Test
        void shouldTellASilentlyDamagedFileFromAScanWithLoggingOffInTheWorker() {
            for (String name : List.of("c0097.pdf", "c0116.pdf", "c0008.pdf")) {
                Path pdf = org.ingestquarantine.testsupport.Corpus.file(name);
                ParseException local = catchThrowableOfType(ParseException.class, () -> new InProcessPdfParser().parse(pdf));
                ParseException remote = catchThrowableOfType(ParseException.class, () -> pool.parse(pdf));
                assertThat(remote).as(name).isExactlyInstanceOf(local.getClass());
                assertThat(remote.getMessage()).as(name).isEqualTo(local.getMessage());
            }
            assertThat(catchThrowableOfType(ParseException.class,
                    () -> pool.parse(org.ingestquarantine.testsupport.Corpus.file("c0097.pdf"))))
                    .isExactlyInstanceOf(PdfSyntaxException.class);
        }

        @Test
        void shouldCarryTheLimitOfALimitFailure() {
            ParseLimitException e = catchThrowableOfType(ParseLimitException.class,
                    () -> pool.parse(folder.resolve("13-hostile-image-100000x100000.pdf")));
            assertThat(e.limitName()).isEqualTo("parse.max-image-pixels");
            assertThat(e.limitValue()).isEqualTo(ParseLimits.DEFAULT_MAX_IMAGE_PIXELS);
        }

        @Test
        void shouldServeConcurrentCallersWithTwoWorkers() throws Exception {
            ExecutorService callers = Executors.newFixedThreadPool(6);
            try {
                List<Future<Integer>> pages = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    Path pdf = folder.resolve(i % 2 == 0 ? "04-text-twelve-pages.pdf" : "02-text-three-pages.pdf");
                    pages.add(callers.submit(() -> pool.parse(pdf).pageCount()));
                }
                for (int i = 0; i < pages.size(); i++) {
                    assertThat(pages.get(i).get()).isEqualTo(i % 2 == 0 ? 12 : 3);
                }
            } finally {
                callers.shutdownNow();
            }
            assertThat(pool.workerCount()).isEqualTo(2);
        }
    }

    @Test
    void shouldKillAWorkerAtTheTimeLimitAndReplaceIt() throws Exception {
        Path slow = folder.resolve("slow.pdf");
        HostilePdfs.textFlood(slow, 150_000);
        try (WorkerPoolParser pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1)
                .withTimeout(Duration.ofMillis(400)))) {
            Set<Long> before = pool.workerPids();
            ParserCrashedException e = catchThrowableOfType(ParserCrashedException.class, () -> pool.parse(slow));
            assertThat(e.reasonCode()).isEqualTo(ParserCrashedException.TIME_LIMIT);
            assertThat(pool.parse(folder.resolve("01-text-one-page.pdf")).pageCount()).isEqualTo(1);
            assertThat(pool.workerPids()).hasSize(1).doesNotContainAnyElementsOf(before);
        }
    }

    @Test
    void shouldReportTheHeapLimitAndReplaceTheWorker() throws Exception {
        Path greedy = folder.resolve("greedy.pdf");
        HostilePdfs.textFlood(greedy, 400_000);
        try (WorkerPoolParser pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1).withMaxHeapMb(48))) {
            Set<Long> before = pool.workerPids();
            ParserCrashedException e = catchThrowableOfType(ParserCrashedException.class, () -> pool.parse(greedy));
            assertThat(e.reasonCode()).isEqualTo(ParserCrashedException.HEAP_LIMIT);
            assertThat(pool.parse(folder.resolve("02-text-three-pages.pdf")).pageCount()).isEqualTo(3);
            assertThat(pool.workerPids()).hasSize(1).doesNotContainAnyElementsOf(before);
        }
    }

    @Test
    void shouldRefuseWorkAfterClose() {
        WorkerPoolParser pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1));
        pool.close();
        assertThat(catchThrowableOfType(IllegalStateException.class,
                () -> pool.parse(folder.resolve("01-text-one-page.pdf")))).hasMessageContaining("closed");
    }

    /** Root cause type and its top three frames (class and method), as the quarantine fingerprint uses them. */
    static String fingerprint(Throwable failure) {
        Throwable root = ErrorFingerprint.rootCause(failure);
        String type = root instanceof RemoteCause remote ? remote.remoteType() : root.getClass().getName();
        return type + Arrays.stream(root.getStackTrace()).limit(3)
                .map(f -> f.getClassName() + "." + f.getMethodName()).collect(Collectors.joining(",", "[", "]"));
    }
}
