package org.ingestquarantine.parse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * Benchmark, not a test: per-document parse latency of a warm {@link WorkerPoolParser} against
 * {@link InProcessPdfParser}, over the PDFs of a folder that parse successfully. Reports the median (and
 * 90th percentile) over documents of the ratio pool time / in-process time, each time being the median
 * of several rounds. Both sides use the same {@link ParseLimits}, run with logging off, are timed in
 * alternating order and are warmed up until every JVM involved has parsed each document
 * {@value #WARM_UP_ROUNDS} times. Run with {@code bench/parse-bench [folder] [rounds]}.
 */
public final class ParseBench {

    private static final int WARM_UP_ROUNDS = 6;

    private ParseBench() {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args.length > 0 ? args[0] : "../shared/corpus/pdfs");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        silenceLogging();
        ParseLimits limits = ParseLimits.defaults();
        InProcessPdfParser inProcess = new InProcessPdfParser(limits);
        List<Path> files = parsable(folder, inProcess);
        try (WorkerPoolParser pool = new WorkerPoolParser(limits)) {
            // each worker sees only its share of the documents, so the pool gets poolSize times the rounds:
            // every worker JVM then runs as many warm-up parses as the in-process parser's JVM
            for (int i = 0; i < WARM_UP_ROUNDS * limits.poolSize(); i++) {
                for (Path file : files) {
                    if (i < WARM_UP_ROUNDS) {
                        inProcess.parse(file);
                    }
                    pool.parse(file);
                }
            }
            long[][] local = new long[files.size()][rounds];
            long[][] remote = new long[files.size()][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < files.size(); i++) {
                    boolean poolFirst = (round + i) % 2 == 0;
                    if (poolFirst) {
                        remote[i][round] = time(pool, files.get(i));
                        local[i][round] = time(inProcess, files.get(i));
                    } else {
                        local[i][round] = time(inProcess, files.get(i));
                        remote[i][round] = time(pool, files.get(i));
                    }
                }
            }
            report(files, local, remote, rounds);
        }
    }

    /**
     * Switches logging off here as the workers do ({@link WorkerMain}): setting the root level alone
     * leaves the {@code org.apache.pdfbox} logger of logback.xml at ERROR, so the in-process side would
     * format and print stack traces that the workers never produce.
     */
    private static void silenceLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.reset();
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.OFF);
        }
    }

    private static List<Path> parsable(Path folder, InProcessPdfParser parser) throws Exception {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.list(folder)) {
            for (Path file : all.sorted().toList()) {
                try {
                    parser.parse(file);
                    files.add(file);
                } catch (ParseException e) {
                    // only documents that parse successfully are compared
                }
            }
        }
        return files;
    }

    private static long time(DocumentParser parser, Path file) throws ParseException {
        long start = System.nanoTime();
        parser.parse(file);
        return System.nanoTime() - start;
    }

    private static void report(List<Path> files, long[][] local, long[][] remote, int rounds) {
        double[] ratios = new double[files.size()];
        double localTotal = 0;
        double remoteTotal = 0;
        for (int i = 0; i < files.size(); i++) {
            double l = median(local[i]);
            double r = median(remote[i]);
            ratios[i] = r / l;
            localTotal += l;
            remoteTotal += r;
        }
        double[] sortedLocal = Arrays.stream(local).mapToDouble(ParseBench::median).sorted().toArray();
        Arrays.sort(ratios);
        System.out.printf(Locale.ROOT, "documents: %d (parsed successfully), rounds: %d after %d warm-up rounds "
                + "(in-process) and %d x pool size (pool)%n", files.size(), rounds, WARM_UP_ROUNDS, WARM_UP_ROUNDS);
        System.out.printf(Locale.ROOT, "in-process median latency: %.2f ms, sum of medians: %.1f ms%n",
                sortedLocal[sortedLocal.length / 2] / 1e6, localTotal / 1e6);
        System.out.printf(Locale.ROOT, "worker pool sum of medians: %.1f ms (ratio of sums %.3f)%n",
                remoteTotal / 1e6, remoteTotal / localTotal);
        System.out.printf(Locale.ROOT, "per-document ratio pool/in-process: median %.3f, p90 %.3f, min %.3f, max %.3f%n",
                percentile(ratios, 0.5), percentile(ratios, 0.9), ratios[0], ratios[ratios.length - 1]);
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    private static double percentile(double[] sorted, double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
