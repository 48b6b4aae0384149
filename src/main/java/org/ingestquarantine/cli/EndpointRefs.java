package org.ingestquarantine.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.util.URISupport;

/** The beans an endpoint URI names in its options: {@code ?dataSource=#dataSource}, {@code #bean:name}. */
final class EndpointRefs {

    private EndpointRefs() {
    }

    /** @return the bean names an endpoint's query refers to ({@code #class:} and {@code #type:} values are not names) */
    static List<String> in(String uri) {
        int q = uri.indexOf('?');
        if (q < 0) {
            return List.of();
        }
        Map<String, Object> options;
        try {
            options = URISupport.parseQuery(uri.substring(q + 1), false, true);
        } catch (java.net.URISyntaxException e) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (Object value : options.values()) {
            String v = String.valueOf(value);
            if (v.startsWith("#") && !v.startsWith("#class:") && !v.startsWith("#type:")) {
                names.add(v.startsWith("#bean:") ? v.substring("#bean:".length()) : v.substring(1));
            }
        }
        return names;
    }
}
