package org.ingestquarantine.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.delivery.NoCamelRedelivery;
import org.ingestquarantine.ingest.SourceAccess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code check-routes [--routes DIR] [--profile P]}: what a route author runs after an edit (routes/README.md).
 * Starts the application on the embedded profile in a scratch data folder with no routes, then checks the route
 * files statically ({@link RouteModelCheck}: each problem one line {@code file:line: problem}, the beans and methods
 * checked against the ones the application bound, the placeholders against {@code --profile}'s properties), loads
 * them into the running application, and runs the sample set through them ({@link ScenarioCheck}), printing PASS or
 * FAIL per check. Exit code 0 when every check passed; 1 when one failed (one line on stderr says which); 2 for
 * bad arguments. The scratch folder is deleted at the end.
 */
@Command(name = "check-routes", mixinStandardHelpOptions = true,
        description = "Check a routes folder: every bean, method, expression and endpoint, then the sample set run "
                + "through it with exact accounting.")
final class CheckRoutesCommand implements Callable<Integer> {

    /** The scenario's source name: the samples' records are kept under it in the scratch database. */
    static final String SOURCE = "check-routes";

    @Spec
    CommandSpec spec;

    @Option(names = "--routes", paramLabel = "DIR",
            description = "Routes folder to check (default: the launcher's, iq.routes-dir).")
    Path routes = Path.of(System.getProperty("iq.routes-dir", "routes"));

    @Option(names = "--profile", defaultValue = "embedded",
            description = "Profile whose properties the routes' placeholders resolve against (default: ${DEFAULT-VALUE});"
                    + " the scenario runs on the embedded profile.")
    String profile;

    @Option(names = "--samples", paramLabel = "DIR",
            description = "Files the scenario publishes (default: the checkout's samples/pdfs, iq.samples-dir).")
    Path samples = Path.of(System.getProperty("iq.samples-dir", "samples/pdfs"));

    @Option(names = "--timeout-s", defaultValue = "300",
            description = "Seconds every sample may take to settle (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String refused = !PipelineApp.PROFILES.contains(profile) ? "unknown profile '" + profile + "'; use one of "
                + PipelineApp.PROFILES : !Files.isDirectory(routes) ? "--routes " + routes + " is not a folder"
                : !Files.isDirectory(samples) ? "--samples " + samples + " is not a folder" : null;
        if (refused != null) {
            err.println("check-routes: " + refused + "; try 'ingest-quarantine check-routes --help' for usage");
            return 2;
        }
        long began = System.nanoTime();
        Path scratch = Files.createTempDirectory("iq-check-routes-");
        try {
            String failed = check(scratch, out);
            out.printf("check-routes: %s in %.1f s%n", failed == null ? "PASS" : "FAIL",
                    Duration.ofNanos(System.nanoTime() - began).toMillis() / 1000.0);
            out.flush();
            if (failed != null) {
                err.println("check-routes: " + failed);
                return 1;
            }
            return 0;
        } finally {
            deleteTree(scratch);
        }
    }

    /** @return why the check failed, one line, or null when it passed */
    private String check(Path scratch, PrintWriter out) throws Exception {
        Path empty = Files.createDirectories(scratch.resolve("no-routes"));
        Path root = samples.toAbsolutePath().normalize().toRealPath();
        Map<String, String> overrides = Map.of(
                // none at start: the user's routes are loaded after the static check (not iq.routes-dir, which a -D
                // of the launcher's sets, and a system property wins over an override)
                "camel.main.routes-include-pattern", "file:" + empty + "/*.camel.yaml",
                "camel.main.source-location-enabled", "true", // each node's file and line
                "camel.main.message-history", "true", // the node a route fault happened at
                SourceAccess.PREFIX + SOURCE + ".file-roots", root.toString());
        try (PipelineApp app = PipelineApp.start("embedded", scratch.resolve("data"), overrides)) {
            Path dir = routes.toAbsolutePath().normalize();
            List<RouteProblem> problems = new RouteModelCheck(ProfileProperties.all(profile, Map.of()),
                    name -> app.context().getRegistry().lookupByName(name)).check(dir);
            problems.forEach(out::println);
            if (!problems.isEmpty()) {
                out.println("FAIL route files: " + problems.size() + " problem(s)");
                return problems.size() + " problem(s) in " + dir + "; first: " + problems.get(0);
            }
            out.println("PASS route files: every bean, method and endpoint resolved, every Simple expression compiled");
            try (RouteFaults faults = RouteFaults.listen(app.context())) {
                String notLoaded = load(app, dir);
                if (notLoaded != null) {
                    out.println("FAIL routes start: " + notLoaded);
                    return notLoaded;
                }
                out.println("PASS routes start");
                ScenarioCheck.Result result = new ScenarioCheck(app, SOURCE).run(root, Duration.ofSeconds(timeoutSeconds),
                        faults);
                out.println(result.summary().toText().lines().filter(l -> !l.startsWith("elapsed")
                        && !l.startsWith("coverage")).map(l -> "  " + l).reduce((a, b) -> a + "\n" + b).orElse(""));
                result.faults().forEach(out::println);
                result.verdicts().forEach(out::println);
                return result.passed() ? null : result.verdicts().stream().filter(v -> !v.passed()).findFirst()
                        .map(ScenarioCheck.Verdict::toString).orElse("FAIL");
            }
        }
    }

    /** @return why Camel could not create or start the routes (one line), or null once they run */
    private static String load(PipelineApp app, Path dir) throws IOException {
        List<Resource> resources;
        try (Stream<Path> files = Files.list(dir)) {
            resources = files.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted()
                    .map(f -> ResourceHelper.resolveResource(app.context(), "file:" + f)).toList();
        }
        try {
            PluginHelper.getRoutesLoader(app.context()).loadRoutes(resources);
            // the start-up guard a real start applies when its context starts, which this one did before the load
            NoCamelRedelivery.check(app.context());
            return null;
        } catch (Exception e) {
            return OneLineError.describe(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
