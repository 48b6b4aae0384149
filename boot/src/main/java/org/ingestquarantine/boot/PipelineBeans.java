package org.ingestquarantine.boot;

import java.util.Optional;
import org.apache.camel.CamelContext;

/** Reads the beans {@code app.AppConfiguration} bound in the Camel registry (Spring's first: the bridge publishes them there too). */
final class PipelineBeans {

    private final CamelContext context;

    PipelineBeans(CamelContext context) {
        this.context = context;
    }

    /**
     * @param name a bean name bound by AppConfiguration or a broker wiring
     * @param type its type
     * @return the bean, or empty before the wiring has run (or when this profile binds none)
     */
    <T> Optional<T> find(String name, Class<T> type) {
        return Optional.ofNullable(context.getRegistry().lookupByNameAndType(name, type));
    }

    /**
     * @param key a property key
     * @return its value as Camel resolves it (Spring's environment), or empty
     */
    Optional<String> property(String key) {
        return context.getPropertiesComponent().resolveProperty(key);
    }
}
