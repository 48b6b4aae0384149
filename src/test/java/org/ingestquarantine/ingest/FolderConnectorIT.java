package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the folder connector reads what its guard checked (DESIGN.md §9) on a real file system: no symbolic link
 * is followed at any component, a FIFO never blocks it, a hard-linked file is refused, and a file swapped under it
 * between the check and the read, thousands of times, never yields a byte from outside the root.
 */
class FolderConnectorIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int SWAPS = 2_000;
    private static final byte[] INSIDE = "%PDF-1.4 inside the root".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MARKER = "root:x:0:0:root:/root:/bin/bash marker-outside".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    private Path root;
    private Path outside;
    private UriGuard guard;
    private final FolderConnector connector = new FolderConnector(DEADLINE);
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "folder-connector-test");
        t.setDaemon(true); // a thread stuck in open() must not keep the test JVM alive
        return t;
    });

    @BeforeEach
    void createRootAndOutside() throws IOException {
        root = Files.createDirectories(dir.resolve("root")).toRealPath();
        outside = Files.createDirectories(dir.resolve("outside")).toRealPath();
        Files.write(outside.resolve("passwd"), MARKER);
        Properties p = new Properties();
        p.setProperty("sources.drop.file-roots", root.toString());
        guard = SourceAccess.fromProperties(p).guard("drop");
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private Path target() {
        return dir.resolve("target.bin");
    }

    private static String reason(Throwable t) {
        return ((PermanentInputException) t).reasonCode();
    }

    @Test
    void shouldReadARegularFileWithItsSizeAndTimeFromTheOpenedFile() throws Exception {
        Path file = Files.write(root.resolve("doc.pdf"), INSIDE);
        SourceHead head = connector.head(file.toUri(), guard);
        assertThat(head.contentLength()).isEqualTo(INSIDE.length);
        assertThat(head.updatedAt()).isEqualTo(Files.getLastModifiedTime(file).toInstant());
        FetchedDocument doc = connector.fetch(file.toUri(), target(), 1000, guard);
        assertThat(doc.bytes()).isEqualTo(INSIDE.length);
        assertThat(Files.readAllBytes(target())).isEqualTo(INSIDE);
        assertThat(doc.sourceUpdatedAt()).isEqualTo(Files.getLastModifiedTime(file).toInstant());
    }

    @Test
    void shouldReadAFileWhoseNameIsNotUtf8ByItsOwnBytes() throws Exception {
        Path latin1 = Path.of(URI.create(root.toUri() + "caf%E9.pdf"));
        Files.write(latin1, INSIDE);
        assertThat(Files.readAllBytes(connector.fetch(latin1.toUri(), target(), 1000, guard).file())).isEqualTo(INSIDE);
    }

    @Test
    void shouldRefuseASymbolicLinkSwappedInAfterTheCheckAtTheLastComponentOrAbove() throws Exception {
        Files.createSymbolicLink(root.resolve("link.pdf"), outside.resolve("passwd"));
        Files.createSymbolicLink(root.resolve("sub"), outside);
        // a guard that checked the path while it was a regular file: the link is what the read meets now
        UriGuard checkedEarlier = uri -> uri;
        for (URI uri : new URI[] {root.resolve("link.pdf").toUri(), root.resolve("sub").resolve("passwd").toUri()}) {
            assertThatThrownBy(() -> connector.fetch(uri, target(), 1000, checkedEarlier))
                    .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason)
                    .isEqualTo("symlink_refused");
            assertThatThrownBy(() -> connector.head(uri, checkedEarlier))
                    .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason)
                    .isEqualTo("symlink_refused");
        }
        assertThat(Files.exists(target()) ? Files.readAllBytes(target()) : new byte[0]).isEmpty();
    }

    @Test
    void shouldRefuseAFifoWithoutBlocking() throws Exception {
        Path fifo = mkfifo(root.resolve("pipe.pdf"));
        Future<Throwable> fetch = threads.submit(() -> failure(() -> connector.fetch(fifo.toUri(), target(), 1000, guard)));
        Future<Throwable> head = threads.submit(() -> failure(() -> connector.head(fifo.toUri(), guard)));
        for (Future<Throwable> f : java.util.List.of(fetch, head)) {
            Throwable t = f.get(10, TimeUnit.SECONDS); // blocked in open() waiting for a writer: times out here
            assertThat(t).isInstanceOf(PermanentInputException.class);
            assertThat(reason(t)).isEqualTo("not_a_file");
        }
    }

    @Test
    void shouldRefuseADeviceAndAFolder() throws Exception {
        Files.createDirectories(root.resolve("folder.pdf"));
        assertThatThrownBy(() -> connector.fetch(root.resolve("folder.pdf").toUri(), target(), 1000, guard))
                .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason).isEqualTo("not_a_file");
        assertThatThrownBy(() -> connector.fetch(URI.create("file:///dev/zero"), target(), 1000, uri -> uri))
                .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason).isEqualTo("not_a_file");
    }

    @Test
    void shouldRefuseAHardLinkedFile() throws Exception {
        Path original = Files.write(outside.resolve("linked.pdf"), MARKER);
        Path link = Files.createLink(root.resolve("linked.pdf"), original);
        assertThatThrownBy(() -> connector.fetch(link.toUri(), target(), 1000, guard))
                .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason).isEqualTo("hard_link");
        assertThatThrownBy(() -> connector.head(link.toUri(), guard))
                .isInstanceOf(PermanentInputException.class).extracting(FolderConnectorIT::reason).isEqualTo("hard_link");
    }

    @Test
    void shouldEndAReadPastItsDeadlineAsATransientTimeout() throws Exception {
        Path file = Files.write(root.resolve("doc.pdf"), INSIDE);
        FolderConnector hurried = new FolderConnector(Duration.ofNanos(1));
        assertThatThrownBy(() -> hurried.fetch(file.toUri(), target(), 1000, guard))
                .isInstanceOf(TransientException.class).extracting(t -> ((TransientException) t).reasonCode())
                .isEqualTo("timeout");
    }

    @Test
    void shouldNeverReadOutsideTheRootNorBlockWhileTheFileIsSwappedForALinkOrAFifo() throws Exception {
        Path name = root.resolve("doc.pdf");
        Files.write(name, INSIDE);
        Path fifo = mkfifo(dir.resolve("fifo-original"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        Future<?> swapper = threads.submit(() -> {
            Path staged = root.resolve(".staged");
            for (int i = 0; !stop.get() && i < SWAPS * 3; i++) {
                switch (i % 3) {
                    case 0 -> Files.write(staged, INSIDE);
                    case 1 -> Files.createSymbolicLink(staged, outside.resolve("passwd"));
                    default -> Files.createLink(staged, fifo);
                }
                try {
                    Files.move(staged, name, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IllegalStateException(e);
                }
                swaps.incrementAndGet();
            }
            return null;
        });
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        Future<?> reader = threads.submit(() -> {
            while (!swapper.isDone()) {
                try {
                    connector.head(name.toUri(), guard);
                    FetchedDocument doc = connector.fetch(name.toUri(), target(), 1000, guard);
                    byte[] read = Files.readAllBytes(doc.file());
                    assertThat(new String(read, StandardCharsets.US_ASCII)).doesNotContain("marker-outside");
                    assertThat(read).isEqualTo(INSIDE);
                    outcomes.computeIfAbsent("read", k -> new AtomicInteger()).incrementAndGet();
                } catch (PermanentInputException e) {
                    outcomes.computeIfAbsent(e.reasonCode(), k -> new AtomicInteger()).incrementAndGet();
                } catch (NoSuchFileException e) {
                    outcomes.computeIfAbsent("gone", k -> new AtomicInteger()).incrementAndGet();
                }
                if (Files.exists(target())) {
                    assertThat(new String(Files.readAllBytes(target()), StandardCharsets.US_ASCII))
                            .doesNotContain("marker-outside");
                }
            }
            return null;
        });
        try {
            reader.get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            stop.set(true);
            throw new AssertionError("a read blocked (in open() on the FIFO?) after " + swaps + " swaps; outcomes " + outcomes, e);
        } finally {
            stop.set(true);
        }
        swapper.get(10, TimeUnit.SECONDS);
        assertThat(swaps).as("swaps").hasValue(SWAPS * 3);
        assertThat(outcomes).as("the race was run: some reads succeeded, some were refused").containsKey("read");
        assertThat(outcomes.keySet()).as("outcomes " + outcomes)
                .isSubsetOf("read", "gone", "uri_not_allowed", "symlink_refused", "not_a_file", "hard_link");
    }

    private static Path mkfifo(Path path) throws Exception {
        Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("mkfifo").isZero();
        return path;
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static Throwable failure(Call call) {
        try {
            call.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
