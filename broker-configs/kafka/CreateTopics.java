// Creates the topics described by broker-configs/kafka/*.properties; run by start-local as a
// single-file program: java -cp <kafka classpath> CreateTopics.java <bootstrap> <topic file>...
// A topic that already exists is left as it is. Keys: name, partitions, replication.factor, config.*.
import java.io.FileReader;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

public class CreateTopics {
    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", args[0]))) {
            for (int i = 1; i < args.length; i++) {
                Properties p = new Properties();
                try (FileReader in = new FileReader(args[i])) {
                    p.load(in);
                }
                Map<String, String> configs = new TreeMap<>();
                p.stringPropertyNames().stream().filter(k -> k.startsWith("config."))
                        .forEach(k -> configs.put(k.substring("config.".length()), p.getProperty(k).trim()));
                NewTopic topic = new NewTopic(p.getProperty("name").trim(), Integer.parseInt(p.getProperty("partitions").trim()),
                        Short.parseShort(p.getProperty("replication.factor").trim())).configs(configs);
                try {
                    admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                    System.out.println("created topic " + topic.name() + " " + topic.numPartitions() + " partitions " + configs);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    System.out.println("topic " + topic.name() + " exists; left as it is");
                }
            }
        }
    }
}
