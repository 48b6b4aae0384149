package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.web.ApiLimits;
import org.ingestquarantine.web.OperatorApi;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code serve [--port P]}: the operator's page and HTTP JSON API on their own over a data folder, until stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serves the operator page (/) and HTTP JSON API (GET /api/stats, /api/cohorts, /api/coverage,"
                + " /api/records/<ref>, /api/records?fingerprint=F, /api/unindexable, /api/drains, /api/overdue,"
                + " /api/actions; POST /api/dispose/preview, /api/dispose, /api/drain/preview, /api/drain,"
                + " /api/sources/<source>/count, /api/sources/<source>/total) over the data folder's database, until"
                + " SIGTERM or Ctrl-C. A canary drain from the page starts the parse workers and loads the model at"
                + " the first one (seconds). Listens on"
                + " operator.api-host (default loopback); every API request needs 'Authorization: Bearer"
                + " <operator.api-token>', which the page asks for."})
final class ServeCommand extends OperatorCommand {

    @Option(names = "--port", paramLabel = "P", description = "TCP port (default: operator.api-port; 0 = any free port).")
    Integer port;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) throws Exception {
        var settings = runtime.settings();
        int p = port != null ? port : (int) settings.requiredNumber("operator.api-port");
        InetSocketAddress address = new InetSocketAddress(settings.required("operator.api-host"), p);
        CountDownLatch stop = new CountDownLatch(1);
        for (String signal : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> stop.countDown());
        }
        // beside a run that holds the data folder: its database stops with it, and so does this page
        runtime.holder().ifPresent(holder -> holder.onExit().thenRun(stop::countDown));
        try (OperatorApi api = OperatorApi.start(address, new OperatorApi.Backend(runtime.service(),
                        runtime.actionsWithCanaries(), runtime.registers(), runtime.sourceCounts(), runtime.storms()), settings.find("operator.api-token").orElse(null),
                Duration.ofDays(settings.requiredNumber("operator.retention-age-days")), ApiLimits.from(settings))) {
            out.println("serving the operator page on http://" + address.getHostString() + ":" + api.port()
                    + "/ and its API under /api/ (SIGTERM or Ctrl-C stops)");
            out.flush();
            stop.await();
        }
        if (runtime.holder().isPresent() && !runtime.holder().get().isAlive()) {
            spec.commandLine().getErr().println("serve: process " + runtime.holder().get().pid() + ", whose database"
                    + " this page used beside it, stopped, and its database with it; start serve again");
            return 1;
        }
        return 0;
    }
}
