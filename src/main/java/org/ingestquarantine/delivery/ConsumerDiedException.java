package org.ingestquarantine.delivery;

import org.ingestquarantine.failure.Reasoned;

/**
 * Earlier deliveries of this message started work and never finished: the consumer (or its machine)
 * died while holding it. Raised by the {@link DeliveryGuard} before any work; classified
 * {@code resource_fatal}.
 */
public class ConsumerDiedException extends RuntimeException implements Reasoned {

    private final String stage;

    /**
     * @param deaths how many earlier attempts never closed
     * @param stage the last stage one of them reached, may be {@code null}
     */
    public ConsumerDiedException(int deaths, String stage) {
        super(deaths + " earlier attempt(s) on this message never finished (last stage: "
                + (stage == null ? "unknown" : stage) + "); not processing it again");
        this.stage = stage;
    }

    /** @return the last stage a dead attempt reached, may be {@code null} */
    public String stage() {
        return stage;
    }

    @Override
    public String reasonCode() {
        return "consumer_died";
    }
}
