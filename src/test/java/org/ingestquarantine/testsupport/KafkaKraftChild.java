package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.InputStream;

/**
 * Main class of the child JVM that {@link KafkaKraftBroker} starts: formats the KRaft storage when a
 * cluster id is given (Kafka's own {@code kafka.tools.StorageTool format}), then runs {@code kafka.Kafka}.
 *
 * <p>Arguments: {@code <server.properties> [<cluster-id>]}. Formatting and serving in one JVM saves one
 * JVM start (about 1.5 s here). The child halts when its standard input reaches end of file, which
 * happens when the parent JVM dies, so a crashed test run leaves no broker behind.
 */
public final class KafkaKraftChild {
    private KafkaKraftChild() {
    }

    public static void main(String[] args) throws Exception {
        watchParent(System.in);
        if (args.length > 1) {
            String[] format = {"format", "--ignore-formatted", "-t", args[1], "-c", args[0]};
            int rc = kafka.tools.StorageTool.execute(format, System.out);
            if (rc != 0) {
                System.err.println("StorageTool format failed with exit code " + rc);
                Runtime.getRuntime().halt(rc);
            }
        }
        kafka.Kafka.main(new String[] {args[0]});
    }

    private static void watchParent(InputStream in) {
        Thread watcher = new Thread(() -> {
            try {
                while (in.read() >= 0) {
                    // the parent never writes; any byte is ignored
                }
            } catch (IOException ignored) {
                // a broken pipe means the same as end of file
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
