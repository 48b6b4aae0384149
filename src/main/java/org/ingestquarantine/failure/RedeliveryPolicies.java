package org.ingestquarantine.failure;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The table of redelivery policies: exactly one {@link RedeliveryPolicy} per {@link ErrorClass}, read from
 * properties. The numbers live in one place, the block "Redelivery budget per error class" of
 * application.properties; there is no second copy here. For every class charged to the document
 * ({@link ErrorClass#chargedToDocument()}; not {@code pipeline_fault}, which is never quarantined) five keys are
 * required, by its code ({@link ErrorClass#code()}): {@code failure.<code>.retries} (redeliveries after the first delivery),
 * {@code .backoff-initial-ms}, {@code .backoff-max-ms}, {@code .backoff-multiplier} (≥ 1.0) and
 * {@code .jitter} (0.0 to 1.0); see {@link RedeliveryPolicy} for their meaning.
 */
public final class RedeliveryPolicies {

    private final Map<ErrorClass, RedeliveryPolicy> policies;

    private RedeliveryPolicies(Map<ErrorClass, RedeliveryPolicy> policies) {
        this.policies = Map.copyOf(policies);
    }

    /**
     * @param property looks a property up by name, empty when unset
     * @return one policy per class
     * @throws IllegalArgumentException when a key is missing, not a number, or breaks a policy's bounds
     */
    public static RedeliveryPolicies fromProperties(Function<String, Optional<String>> property) {
        Map<ErrorClass, RedeliveryPolicy> m = new EnumMap<>(ErrorClass.class);
        for (ErrorClass c : ErrorClass.values()) {
            if (!c.chargedToDocument()) {
                continue;
            }
            String p = "failure." + c.code() + ".";
            Function<String, String> required = key -> property.apply(p + key).map(String::trim)
                    .orElseThrow(() -> new IllegalArgumentException("property " + p + key + " is missing; every error"
                            + " class needs retries, backoff-initial-ms, backoff-max-ms, backoff-multiplier and jitter"));
            m.put(c, new RedeliveryPolicy(
                    (int) parseLong(p + "retries", required.apply("retries")),
                    Duration.ofMillis(parseLong(p + "backoff-initial-ms", required.apply("backoff-initial-ms"))),
                    parseDouble(p + "backoff-multiplier", required.apply("backoff-multiplier")),
                    Duration.ofMillis(parseLong(p + "backoff-max-ms", required.apply("backoff-max-ms"))),
                    parseDouble(p + "jitter", required.apply("jitter"))));
        }
        return new RedeliveryPolicies(m);
    }

    /**
     * @param errorClass a class charged to the document ({@link ErrorClass#chargedToDocument()})
     * @return its policy, never {@code null}
     * @throws IllegalArgumentException for a class that is never quarantined and so has no budget
     */
    public RedeliveryPolicy forClass(ErrorClass errorClass) {
        RedeliveryPolicy policy = policies.get(errorClass);
        if (policy == null) {
            throw new IllegalArgumentException(errorClass.code() + " is never charged to a document: it has no budget");
        }
        return policy;
    }

    private static long parseLong(String key, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("property " + key + " must be a whole number of ms, was '" + value + "'");
        }
    }

    private static double parseDouble(String key, String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("property " + key + " must be a number, was '" + value + "'");
        }
    }
}
