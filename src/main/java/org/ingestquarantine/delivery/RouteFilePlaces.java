package org.ingestquarantine.delivery;

import java.io.InputStream;
import java.util.Optional;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Finds places in a route file that Camel's model keeps no line for (an error handler's redelivery policy), reading
 * the file's YAML nodes with the parser Camel's YAML DSL uses.
 */
final class RouteFilePlaces {

    private RouteFilePlaces() {
    }

    /**
     * @param context resolves the file
     * @param location the file a route or route configuration was read from ({@code file:/x/y.camel.yaml}), or null
     * @param kind {@code route} or {@code routeConfiguration}
     * @param id its id
     * @return {@code <file>:<line>} of the {@code redeliveryPolicy} of its {@code errorHandler}, or of the file alone
     *     where it cannot be found there, or {@code <kind> <id>} where the file is not known
     */
    static String errorHandlerRedelivery(CamelContext context, String location, String kind, String id) {
        if (location == null) {
            return kind + " " + id;
        }
        String file = file(location);
        Resource resource = PluginHelper.getResourceLoader(context).resolveResource(location);
        try (InputStream in = resource.getInputStream()) {
            for (Node document : new Compose(LoadSettings.builder().build()).composeAllFromInputStream(in)) {
                if (document instanceof SequenceNode items) {
                    for (Node item : items.getValue()) {
                        Optional<Node> policy = value(item, kind).filter(d -> value(d, "id").map(RouteFilePlaces::text)
                                .filter(id::equals).isPresent())
                                .flatMap(d -> value(d, "errorHandler")).flatMap(RouteFilePlaces::onlyValue)
                                .flatMap(h -> key(h, "redeliveryPolicy"));
                        if (policy.isPresent() && policy.get().getStartMark().isPresent()) {
                            return file + ":" + (policy.get().getStartMark().get().getLine() + 1);
                        }
                    }
                }
            }
        } catch (Exception unreadable) {
            // the file alone, then
        }
        return file;
    }

    /** @return a Camel resource location ({@code file:/x/y.camel.yaml}) as a path */
    static String file(String location) {
        if (location == null) {
            return "a route file";
        }
        return location.startsWith("file:") ? location.substring("file:".length()) : location;
    }

    private static Optional<Node> value(Node mapping, String name) {
        return tuple(mapping, name).map(NodeTuple::getValueNode);
    }

    private static Optional<Node> key(Node mapping, String name) {
        return tuple(mapping, name).map(NodeTuple::getKeyNode);
    }

    private static Optional<NodeTuple> tuple(Node mapping, String name) {
        if (mapping instanceof MappingNode m) {
            return m.getValue().stream().filter(t -> name.equals(text(t.getKeyNode()))).findFirst();
        }
        return Optional.empty();
    }

    /** @return the value of a mapping of one key ({@code deadLetterChannel: {...}}) */
    private static Optional<Node> onlyValue(Node mapping) {
        return mapping instanceof MappingNode m && m.getValue().size() == 1
                ? Optional.of(m.getValue().get(0).getValueNode()) : Optional.empty();
    }

    private static String text(Node node) {
        return node instanceof ScalarNode s ? s.getValue() : null;
    }
}
