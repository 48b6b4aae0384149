package org.ingestquarantine.testsupport;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.failure.RedeliveryPolicies;

/**
 * The properties the application ships for its default profile, read by the application's own loader
 * ({@link ProfileProperties}), for unit tests.
 */
public final class ShippedProperties {

    private ShippedProperties() {
    }

    /** @return a lookup over application.properties and application-embedded.properties */
    public static Function<String, Optional<String>> lookup() {
        return ProfileProperties.load("embedded", Map.of())::find;
    }

    /** @return the redelivery policies as shipped */
    public static RedeliveryPolicies policies() {
        return RedeliveryPolicies.fromProperties(lookup());
    }
}
