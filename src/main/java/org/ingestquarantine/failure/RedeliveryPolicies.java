package org.ingestquarantine.failure;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The table of redelivery policies: exactly one {@link RedeliveryPolicy} per {@link ErrorClass}.
 *
 * <p>Defaults (DESIGN.md §2), each overridable by properties named
 * {@code failure.<code>.retries}, {@code failure.<code>.backoff-initial-ms},
 * {@code failure.<code>.backoff-max-ms}, {@code failure.<code>.backoff-multiplier} and
 * {@code failure.<code>.jitter}, where {@code <code>} is {@link ErrorClass#code()}:
 * <ul>
 *   <li>transient: {@value #TRANSIENT_RETRIES} retries, {@value #TRANSIENT_INITIAL_MS} ms doubling to
 *       {@value #TRANSIENT_MAX_MS} ms, ±20 % jitter;</li>
 *   <li>ambiguous_parse, resource_fatal, unclassified: {@value #ONE_MORE_TRY} retry after
 *       {@value #SINGLE_RETRY_DELAY_MS} ms;</li>
 *   <li>permanent_input, downstream_contract: 0 retries.</li>
 * </ul>
 */
public final class RedeliveryPolicies {

    /** Default redeliveries for transient failures (DESIGN.md range 5–8). */
    public static final int TRANSIENT_RETRIES = 6;
    /** Default first transient back-off, ms. */
    public static final long TRANSIENT_INITIAL_MS = 1_000;
    /** Default cap on a transient back-off, ms. */
    public static final long TRANSIENT_MAX_MS = 60_000;
    /** Default retries for classes where one more try may tell chance from cause. */
    public static final int ONE_MORE_TRY = 1;
    /** Default delay before that one retry, ms. */
    public static final long SINGLE_RETRY_DELAY_MS = 1_000;

    private final Map<ErrorClass, RedeliveryPolicy> policies;

    private RedeliveryPolicies(Map<ErrorClass, RedeliveryPolicy> policies) {
        for (ErrorClass c : ErrorClass.values()) {
            if (!policies.containsKey(c)) {
                throw new IllegalStateException("no redelivery policy for error class " + c.code());
            }
        }
        this.policies = Map.copyOf(policies);
    }

    /** @return the defaults stated in this class's Javadoc */
    public static RedeliveryPolicies defaults() {
        return fromProperties(key -> Optional.empty());
    }

    /**
     * @param property looks a property up by name, empty when unset
     * @return the defaults, with every property that is set applied
     * @throws IllegalArgumentException when a property is not a number or breaks a policy's bounds
     */
    public static RedeliveryPolicies fromProperties(Function<String, Optional<String>> property) {
        Map<ErrorClass, RedeliveryPolicy> m = new EnumMap<>(ErrorClass.class);
        for (ErrorClass c : ErrorClass.values()) {
            RedeliveryPolicy d = defaultFor(c);
            String p = "failure." + c.code() + ".";
            int retries = property.apply(p + "retries").map(v -> parseInt(p + "retries", v)).orElse(d.retries());
            long initial = property.apply(p + "backoff-initial-ms").map(v -> parseLong(p + "backoff-initial-ms", v))
                    .orElse(d.initialBackoff().toMillis());
            long max = property.apply(p + "backoff-max-ms").map(v -> parseLong(p + "backoff-max-ms", v))
                    .orElse(Math.max(initial, d.maxBackoff().toMillis()));
            double multiplier = property.apply(p + "backoff-multiplier").map(v -> parseDouble(p + "backoff-multiplier", v))
                    .orElse(d.multiplier());
            double jitter = property.apply(p + "jitter").map(v -> parseDouble(p + "jitter", v)).orElse(d.jitter());
            m.put(c, new RedeliveryPolicy(retries, Duration.ofMillis(initial), multiplier, Duration.ofMillis(max), jitter));
        }
        return new RedeliveryPolicies(m);
    }

    private static RedeliveryPolicy defaultFor(ErrorClass c) {
        Duration single = Duration.ofMillis(SINGLE_RETRY_DELAY_MS);
        return switch (c) {
            case TRANSIENT -> RedeliveryPolicy.exponential(TRANSIENT_RETRIES,
                    Duration.ofMillis(TRANSIENT_INITIAL_MS), Duration.ofMillis(TRANSIENT_MAX_MS));
            case AMBIGUOUS_PARSE, RESOURCE_FATAL, UNCLASSIFIED ->
                    new RedeliveryPolicy(ONE_MORE_TRY, single, 1.0, single, 0.0);
            case PERMANENT_INPUT, DOWNSTREAM_CONTRACT -> RedeliveryPolicy.none();
        };
    }

    /**
     * @param errorClass a class
     * @return its policy, never {@code null}
     */
    public RedeliveryPolicy forClass(ErrorClass errorClass) {
        return policies.get(errorClass);
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("property " + key + " must be a whole number, was '" + value + "'");
        }
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
