package org.ingestquarantine.boot;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.springframework.boot.autoconfigure.amqp.RabbitConnectionDetails;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Our {@code rabbitmq.uri} ({@code amqp://user:password@host:port/vhost}, the vhost URL-encoded: {@code %2f} is
 * {@code /}) as the connection of Boot's RabbitMQ auto-configuration, used only while no
 * {@code spring.rabbitmq.*} connection key is set ({@link #KEYS}): any of those and Boot's own properties decide.
 *
 * @param uri the broker's URI
 */
record RabbitUriConnection(URI uri) implements RabbitConnectionDetails {

    /** Boot's keys that name the connection; one set and {@code rabbitmq.uri} is not used. */
    static final List<String> KEYS = Stream.of("host", "port", "addresses", "username", "password", "virtual-host")
            .map(k -> "spring.rabbitmq." + k).toList();

    @Override
    public String getUsername() {
        return userInfo(0, "guest");
    }

    @Override
    public String getPassword() {
        return userInfo(1, "guest");
    }

    @Override
    public String getVirtualHost() {
        String path = uri.getRawPath();
        return path == null || path.length() <= 1 ? "/" : URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
    }

    @Override
    public List<Address> getAddresses() {
        int port = uri.getPort() > 0 ? uri.getPort() : "amqps".equals(uri.getScheme()) ? 5671 : 5672;
        return List.of(new Address(uri.getHost(), port));
    }

    private String userInfo(int part, String otherwise) {
        String info = uri.getRawUserInfo();
        if (info == null) {
            return otherwise;
        }
        String[] parts = info.split(":", 2);
        return part < parts.length ? URLDecoder.decode(parts[part], StandardCharsets.UTF_8) : otherwise;
    }

    /** {@code rabbitmq.uri} set and none of {@link #KEYS}. */
    static final class Applies implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            var env = context.getEnvironment();
            return env.containsProperty("rabbitmq.uri") && KEYS.stream().noneMatch(env::containsProperty);
        }
    }
}
