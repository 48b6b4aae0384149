package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ensures every hostile shape gets a clear classification through the worker pool, while the parent JVM
 * stays up with bounded heap and the pool keeps parsing good files afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileInputIT {

    private static final long PARENT_HEAP_GROWTH_BOUND = 48L * 1024 * 1024;

    @TempDir
    static Path folder;

    private WorkerPoolParser pool;
    private long usedHeapBefore;

    /** A hostile shape, the outcomes it may have, and how it is written. */
    interface Shape {
        void write(Path file) throws Exception;
    }

    @BeforeAll
    void startPool() throws Exception {
        SampleSet.write(folder);
        pool = new WorkerPoolParser(ParseLimits.defaults().withTimeout(Duration.ofSeconds(20)));
        usedHeapBefore = usedHeapAfterGc();
    }

    @AfterAll
    void closePool() {
        pool.close();
    }

    Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of("xref-prev-self-loop", (Shape) HostilePdfs::xrefPrevSelfLoop, Set.of(SampleSet.INDEXED)),
                Arguments.of("page-count-billions", (Shape) HostilePdfs::pageCountBillions, Set.of(SampleSet.INDEXED)),
                Arguments.of("nested-flate-bomb-4gib", (Shape) f -> HostilePdfs.nestedFlateBomb(f, 4L << 30),
                        Set.of(ParseLimitException.STREAM_BYTES_LIMIT)),
                Arguments.of("inline-image-without-ei", (Shape) HostilePdfs::inlineImageWithoutEnd,
                        Set.of(SampleSet.INDEXED, PdfSyntaxException.PARSE_ERROR)),
                Arguments.of("kids-contain-ancestor", (Shape) HostilePdfs::kidsContainAncestor, Set.of(SampleSet.INDEXED)),
                Arguments.of("image-100000x100000", (Shape) f -> HostilePdfs.hugeImage(f, 100_000, 100_000),
                        Set.of(ParseLimitException.IMAGE_PIXEL_LIMIT)),
                Arguments.of("pages-2001", (Shape) f -> HostilePdfs.manyPages(f, 2001), Set.of(ParseLimitException.PAGE_LIMIT)),
                Arguments.of("self-drawing-form", (Shape) HostilePdfs::selfDrawingForm,
                        Set.of(SampleSet.INDEXED, PdfSyntaxException.PARSE_ERROR)),
                Arguments.of("page-tree-5000-deep", (Shape) f -> HostilePdfs.deepPageTree(f, 5000),
                        Set.of(SampleSet.INDEXED, PdfSyntaxException.PARSE_ERROR)));
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shouldClassifyEachHostileShape(String name, Shape shape, Set<String> allowed) throws Exception {
        Path file = folder.resolve(name + ".pdf");
        shape.write(file);
        assertThat(Outcome.of(pool, file)).as(name).isIn(allowed);
    }

    @Order(2)
    @Test
    void shouldReadTheRealPageCountNotTheClaimedOne() throws Exception {
        Path file = folder.resolve("claims.pdf");
        HostilePdfs.pageCountBillions(file);
        ParsedDocument document = pool.parse(file);
        assertThat(document.pageCount()).isEqualTo(1);
        assertThat(document.pageTexts().get(0)).contains("One page among billions claimed");
    }

    @Order(3)
    @Test
    void shouldKeepTheParentHeapBoundedAndThePoolWorking() throws Exception {
        assertThat(usedHeapAfterGc() - usedHeapBefore).isLessThan(PARENT_HEAP_GROWTH_BOUND);
        assertThat(pool.parse(folder.resolve("04-text-twelve-pages.pdf")).pageCount()).isEqualTo(12);
        assertThat(pool.workerCount()).isEqualTo(ParseLimits.DEFAULT_POOL_SIZE);
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
