package org.ingestquarantine.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.ingestquarantine.cli.IngestQuarantineCli;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;

/**
 * Benchmark, not a test: the main job ({@code ingest <folder> --json}, in-process through the launcher's command
 * line, fresh data dir, embedded default) with {@code embed.provider=local} against {@code embed.provider=openai}
 * pointed at our own {@code serve-embeddings} in a JVM of its own on this machine, alternating, in one run. Prints
 * per run seconds, documents/s after start-up, CPU-seconds of the consumer (this JVM and its parser workers; the
 * embedded PostgreSQL not counted) and of the embedding service, and the indexed documents and chunks read back
 * from the index; then the ratios openai/local. On one machine the service's CPU is the local model's, moved to
 * another process: the point is the consumer's CPU, which leaves it when the service runs elsewhere.
 * Run with {@code bench/embedding-bench [folder] [repetitions]}.
 */
public final class EmbeddingBench {

    private EmbeddingBench() {
    }

    /** One measured run. */
    private record Run(String provider, double seconds, double docsPerS, double consumerCpuS, double serviceCpuS,
                       long indexed, long chunks) {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args.length > 0 ? args[0] : "../shared/corpus/pdfs").toAbsolutePath().normalize();
        int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        long files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(Files::isRegularFile).count();
        }
        Path tmp = Files.createTempDirectory("iq-embedding-bench-");
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path serviceLog = tmp.resolve("serve-embeddings.log");
        Process service = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), IngestQuarantineCli.class.getName(), "serve-embeddings",
                "--port", Integer.toString(port)).redirectErrorStream(true)
                .redirectOutput(serviceLog.toFile()).start();
        List<Run> runs = new ArrayList<>();
        try {
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (!Files.readString(serviceLog).contains("settings: ")) {
                if (!service.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("serve-embeddings did not start: " + Files.readString(serviceLog));
                }
                Thread.sleep(200);
            }
            System.out.printf(Locale.ROOT, "embedding-bench: %d files in %s, %d cores, service on port %d%n", files,
                    folder, Runtime.getRuntime().availableProcessors(), port);
            System.setProperty("embed.openai.url", "http://127.0.0.1:" + port + "/v1");
            for (int rep = 0; rep < repetitions; rep++) {
                for (int side = 0; side < 2; side++) {
                    String provider = (side == 0) == (rep % 2 == 0) ? "local" : "openai";
                    Run r = run(provider, folder, files, tmp.resolve(provider + "-" + rep), service);
                    runs.add(r);
                    System.out.printf(Locale.ROOT, "run %d %-6s %6.1f s %5.2f documents/s consumer %6.1f CPU-s service"
                                    + " %6.1f CPU-s indexed %d chunks %d%n", rep + 1, r.provider(), r.seconds(),
                            r.docsPerS(), r.consumerCpuS(), r.serviceCpuS(), r.indexed(), r.chunks());
                }
                Run a = runs.get(runs.size() - 2);
                Run b = runs.get(runs.size() - 1);
                Run local = a.provider().equals("local") ? a : b;
                Run openai = a == local ? b : a;
                System.out.printf(Locale.ROOT, "  ratio openai/local: %.2f documents/s, %.2f consumer CPU-s;"
                                + " same indexed documents and chunks: %s%n", openai.docsPerS() / local.docsPerS(),
                        openai.consumerCpuS() / local.consumerCpuS(),
                        openai.indexed() == local.indexed() && openai.chunks() == local.chunks());
            }
        } finally {
            service.destroy();
            service.waitFor();
        }
        System.exit(0);
    }

    private static Run run(String provider, Path folder, long files, Path dataDir, Process service) throws Exception {
        System.setProperty("embed.provider", provider);
        double consumerBefore = consumerCpu(service);
        double serviceBefore = cpu(service.toHandle());
        BenchIngest ingest = BenchIngest.run(folder, dataDir);
        double seconds = ingest.seconds();
        double consumer = consumerCpu(service) - consumerBefore;
        double served = cpu(service.toHandle()) - serviceBefore;
        JsonNode summary = ingest.summary();
        double processing = ingest.processingSeconds();
        long indexed;
        long chunks;
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(EmbeddedPostgresService.folderIn(dataDir), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password());
             Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*), coalesce(sum(chunk_count), 0) FROM documents"
                     + " WHERE state = 'searchable'")) {
            r.next();
            indexed = r.getLong(1);
            chunks = r.getLong(2);
        }
        return new Run(provider, seconds, files / processing, consumer, served, indexed, chunks);
    }

    /** @return CPU-seconds so far of this JVM and its child processes other than the service */
    private static double consumerCpu(Process service) {
        double total = cpu(ProcessHandle.current());
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            if (p.pid() != service.pid()) {
                total += cpu(p);
            }
        }
        return total;
    }

    private static double cpu(ProcessHandle p) {
        return p.info().totalCpuDuration().orElse(Duration.ZERO).toNanos() / 1e9;
    }
}
