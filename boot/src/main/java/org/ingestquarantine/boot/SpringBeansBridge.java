package org.ingestquarantine.boot;

import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.DefaultRegistry;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Publishes what the wiring bound in the Camel registry as Spring singletons of the same name, the same objects,
 * so Spring sees the pipeline's beans ({@code getBean}, {@code @Autowired}, {@code getBeansOfType}) and Camel,
 * which looks Spring's beans up first, still finds each under its name. A name Spring already has (Boot's
 * {@code dataSource}, our {@code database}) keeps Spring's bean. The wiring stays their owner: it stops them
 * with the Camel context; Spring does not destroy a singleton registered this way.
 */
final class SpringBeansBridge {

    private SpringBeansBridge() {
    }

    /**
     * @param context the Camel context the wiring ran on
     * @param spring Spring's bean factory
     * @return how many beans were published
     */
    static int publish(CamelContext context, ConfigurableListableBeanFactory spring) {
        Registry registry = context.getRegistry();
        if (!(registry instanceof DefaultRegistry camel)) {
            throw new IllegalStateException("the Camel registry is a " + registry.getClass().getName()
                    + ", not Camel's DefaultRegistry: the pipeline's beans cannot be published to Spring");
        }
        int published = 0;
        for (Map.Entry<String, Object> bound : camel.getFallbackRegistry().findByTypeWithName(Object.class).entrySet()) {
            if (!spring.containsBean(bound.getKey())) {
                spring.registerSingleton(bound.getKey(), bound.getValue());
                published++;
            }
        }
        return published;
    }
}
