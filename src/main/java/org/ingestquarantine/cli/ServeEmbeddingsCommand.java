package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.embed.EmbeddingServer;
import org.ingestquarantine.pipeline.Settings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code serve-embeddings [--host H] [--port P]}: the in-process all-MiniLM-L6-v2 behind an OpenAI-compatible
 * {@code POST /v1/embeddings}, until stopped, so that {@code embed.provider = openai} can embed on another machine.
 */
@Command(name = "serve-embeddings", mixinStandardHelpOptions = true,
        description = {"Serves all-MiniLM-L6-v2 (the model ingest and run embed with) behind an OpenAI-compatible"
                + " POST /v1/embeddings, until SIGTERM or Ctrl-C. Listens on embed.serve.host (default loopback)."
                + " When the variable named by embed.openai.api-key-env (IQ_EMBED_API_KEY) is set, every request"
                + " needs 'Authorization: Bearer <that key>'. Point the product at it with -Dembed.provider=openai"
                + " -Dembed.openai.url=http://<host>:<port>/v1 (printed on start)."})
final class ServeEmbeddingsCommand implements Callable<Integer> {

    /** The model served, as the service names it in its responses. */
    static final String MODEL = "all-MiniLM-L6-v2";

    @Spec
    CommandSpec spec;

    @Option(names = "--host", paramLabel = "H", description = "Address to listen on (default: embed.serve.host).")
    String host;

    @Option(names = "--port", paramLabel = "P", description = "TCP port (default: embed.serve.port; 0 = any free port).")
    Integer port;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Settings settings = ProfileProperties.load("embedded", Map.of());
        InetSocketAddress address = new InetSocketAddress(host != null ? host : settings.required("embed.serve.host"),
                port != null ? port : (int) settings.requiredNumber("embed.serve.port"));
        String keyEnv = settings.string("embed.openai.api-key-env", "");
        String key = keyEnv.isBlank() ? null : System.getenv(keyEnv);
        CountDownLatch stop = new CountDownLatch(1);
        for (String signal : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> stop.countDown());
        }
        try (MiniLmEmbedder model = new MiniLmEmbedder((int) settings.requiredNumber("embed.threads"),
                (int) settings.requiredNumber("embed.batch-chunks"), (int) settings.requiredNumber("embed.max-tokens"),
                MiniLmModel.of(settings).requirePresent())) {
            model.startLoading();
            model.modelLoaded().join();
            try (EmbeddingServer server = EmbeddingServer.start(address, model, new EmbeddingServer.Limits(MODEL,
                            key == null || key.isBlank() ? null : key, settings.requiredNumber("embed.serve.max-request-bytes")),
                    (int) settings.requiredNumber("embed.serve.handler-threads"))) {
                out.println("serving " + MODEL + " embeddings on " + server.baseUrl() + "/embeddings ("
                        + (key == null || key.isBlank() ? "no key required" : "key from $" + keyEnv + " required")
                        + "; SIGTERM or Ctrl-C stops)");
                out.println("settings: -Dembed.provider=openai -Dembed.openai.url=" + server.baseUrl()
                        + " -Dembed.openai.model=" + MODEL + " -Dembed.openai.dimensions=" + model.dimensions());
                out.flush();
                stop.await();
            }
        }
        return 0;
    }
}
