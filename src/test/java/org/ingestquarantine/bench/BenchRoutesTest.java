package org.ingestquarantine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * bench/broker-bench's stand-in for process-document must keep the product route's shape, so that the full path it
 * measures makes the same stage marks and settles the same way: same route id, same route configuration, the same
 * step ids in the same order, and the same closing outcome bean.
 */
class BenchRoutesTest {

    @Test
    void benchProcessDocumentKeepsTheProductsStepsAndOutcome() throws Exception {
        Map<String, Object> product = route(Path.of("routes", "process-document.camel.yaml"));
        Map<String, Object> bench = route(Path.of("bench", "routes", "process-document.camel.yaml"));
        assertEquals(product.get("id"), bench.get("id"));
        assertEquals(product.get("routeConfigurationId"), bench.get("routeConfigurationId"));
        assertEquals(stepIds(product), stepIds(bench));
        assertEquals(outcomeBean(product), outcomeBean(bench));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> route(Path file) throws Exception {
        List<Object> doc = (List<Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file));
        return doc.stream().map(e -> (Map<String, Object>) ((Map<String, Object>) e).get("route"))
                .filter(r -> r != null && "process-document".equals(r.get("id"))).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> steps(Map<String, Object> route) {
        return (List<Map<String, Object>>) ((Map<String, Object>) route.get("from")).get("steps");
    }

    @SuppressWarnings("unchecked")
    private static List<String> stepIds(Map<String, Object> route) {
        List<String> ids = new ArrayList<>();
        for (Map<String, Object> s : steps(route)) {
            if (s.containsKey("step")) {
                ids.add((String) ((Map<String, Object>) s.get("step")).get("id"));
            }
        }
        return ids;
    }

    /** @return the ref and method of the first {@code outcomes} bean after the last step, e.g. outcomes/indexed(...) */
    @SuppressWarnings("unchecked")
    private static String outcomeBean(Map<String, Object> route) {
        List<Map<String, Object>> steps = steps(route);
        int lastStep = 0;
        for (int i = 0; i < steps.size(); i++) {
            lastStep = steps.get(i).containsKey("step") ? i : lastStep;
        }
        for (Map<String, Object> s : steps.subList(lastStep + 1, steps.size())) {
            Map<String, Object> bean = (Map<String, Object>) s.get("bean");
            if (bean != null && "outcomes".equals(bean.get("ref"))) {
                return bean.get("ref") + "/" + bean.get("method");
            }
        }
        return "none";
    }
}
