package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import org.ingestquarantine.failure.RedeliveryPolicies;

/** The properties the application ships (application.properties on the class path), for unit tests. */
public final class ShippedProperties {

    private ShippedProperties() {
    }

    /** @return a lookup over application.properties */
    public static Function<String, Optional<String>> lookup() {
        Properties p = new Properties();
        try (InputStream in = ShippedProperties.class.getResourceAsStream("/application.properties")) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return key -> Optional.ofNullable(p.getProperty(key));
    }

    /** @return the redelivery policies as shipped */
    public static RedeliveryPolicies policies() {
        return RedeliveryPolicies.fromProperties(lookup());
    }
}
