// Runs ElasticMQ's SQS REST server (elasticmq-rest-sqs from the project's pom) on 127.0.0.1 until the
// process is killed. Run by start-local as a single-file program:
//   java -cp <classpath> ElasticMqLocal.java <port>
// Queue URLs are http://127.0.0.1:<port>/000000000000/<queue>; ARNs arn:aws:sqs:elasticmq:000000000000:<queue>.
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

public class ElasticMqLocal {
    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        SQSRestServerBuilder.withInterface("127.0.0.1").withPort(port)
                .withServerAddress(new NodeAddress("http", "127.0.0.1", port, ""))
                .start().waitUntilStarted();
        System.out.println("ElasticMQ listening on 127.0.0.1:" + port);
        Thread.currentThread().join();
    }
}
