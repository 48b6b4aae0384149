package org.ingestquarantine.cli;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.camel.LineNumberAware;
import org.apache.camel.RouteConfigurationsBuilder;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.BeanDefinition;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.BasicOutputExpressionNode;
import org.apache.camel.model.HasExpressionType;
import org.apache.camel.model.ExpressionSubElementDefinition;
import org.apache.camel.model.FilterDefinition;
import org.apache.camel.model.Model;
import org.apache.camel.model.OnExceptionDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SendDefinition;
import org.apache.camel.model.ToDynamicDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.model.WhenDefinition;
import org.apache.camel.model.errorhandler.DefaultErrorHandlerDefinition;
import org.apache.camel.model.language.ExpressionDefinition;
import org.apache.camel.model.language.MethodCallExpression;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;

/**
 * The static half of {@code check-routes}: reads every {@code *.camel.yaml} of a routes folder into a Camel context
 * of its own that is never started (Camel keeps each node's file and line: {@code source-location-enabled}) and
 * checks, node by node, what can be checked without a message: the YAML itself and its fields, each bean a route
 * names (bound, and its method there by name and, where the call gives arguments, by their count), each Simple
 * expression and predicate (compiled), each endpoint (its component on the class path, its {@code #bean}
 * references bound, its placeholders set in the profile), each route's {@code routeConfigurationId}, duplicate ids,
 * and a {@code platform-http:} endpoint without {@code camel.server.enabled}. Every problem found is one
 * {@link RouteProblem}; nothing is created or started.
 */
final class RouteModelCheck {

    /** The property that switches on Camel Main's HTTP server, which {@code platform-http:} routes consume from. */
    static final String SERVER_ENABLED = "camel.server.enabled";

    private final Properties properties;
    private final Function<String, Object> beans;
    private final List<RouteProblem> problems = new ArrayList<>();
    private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * @param properties the profile's properties, which the routes' placeholders resolve against
     * @param beans the bean bound under a name, or null: the application's registry
     */
    RouteModelCheck(Properties properties, Function<String, Object> beans) {
        this.properties = properties;
        this.beans = beans;
    }

    /**
     * @param routesDir the folder whose {@code *.camel.yaml} files are checked (not its sub-folders, as at start-up)
     * @return every problem found, in file order; empty when none
     * @throws IOException when the folder cannot be listed
     */
    List<RouteProblem> check(Path routesDir) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(routesDir)) {
            files = list.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted().toList();
        }
        try (DefaultCamelContext context = new DefaultCamelContext(false)) {
            context.setSourceLocationEnabled(true);
            context.getPropertiesComponent().setInitialProperties(properties);
            context.build();
            for (Path file : files) {
                load(context, file);
            }
            Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
            Set<String> configurations = new TreeSet<>();
            Map<String, RouteConfigurationDefinition> configurationIds = new LinkedHashMap<>();
            for (RouteConfigurationDefinition c : model.getRouteConfigurationDefinitions()) {
                if (c.getId() != null && configurationIds.put(c.getId(), c) != null) {
                    add(c, "route configuration id '" + c.getId() + "' is used twice");
                }
                configurations.add(c.getId());
                check(context, c);
            }
            Map<String, RouteDefinition> routeIds = new LinkedHashMap<>();
            for (RouteDefinition r : model.getRouteDefinitions()) {
                if (r.getId() != null && routeIds.put(r.getId(), r) != null) {
                    add(r, "route id '" + r.getId() + "' is used twice (each route file's routes need ids of their own)");
                }
                if (r.getRouteConfigurationId() != null) {
                    for (String id : r.getRouteConfigurationId().split(",")) {
                        if (!id.isBlank() && !configurations.contains(id.strip())) {
                            add(r, "route " + r.getId() + ": routeConfigurationId '" + id.strip()
                                    + "' is not defined in any route file (defined: " + configurations + ")");
                        }
                    }
                }
                if (r.getInput() != null) {
                    endpoint(context, r.getInput(), r.getInput().getEndpointUri());
                }
                walk(context, r.getOutputs());
            }
        }
        return List.copyOf(problems);
    }

    private void load(DefaultCamelContext context, Path file) {
        try {
            var resource = ResourceHelper.resolveResource(context, "file:" + file.toAbsolutePath());
            for (RoutesBuilder builder : PluginHelper.getRoutesLoader(context).findRoutesBuilders(resource)) {
                // the context is not started: its model only
                if (builder instanceof RouteConfigurationsBuilder configurations) {
                    configurations.addRouteConfigurationsToCamelContext(context);
                }
                builder.addRoutesToCamelContext(context);
            }
        } catch (Exception e) {
            problems.add(RouteFileError.in(e).map(RouteFileError::problem)
                    .orElseGet(() -> new RouteProblem(file.toAbsolutePath().toString(), 0, OneLineError.describe(e))));
        }
    }

    private void check(DefaultCamelContext context, RouteConfigurationDefinition c) {
        if (c.getErrorHandler() != null && c.getErrorHandler().getErrorHandlerType()
                instanceof DefaultErrorHandlerDefinition handler) {
            if (handler instanceof org.apache.camel.model.errorhandler.DeadLetterChannelDefinition dlc) {
                endpoint(context, c, dlc.getDeadLetterUri());
            }
            for (String ref : new String[] {handler.getOnExceptionOccurredRef(), handler.getOnRedeliveryRef(),
                    handler.getOnPrepareFailureRef(), handler.getRetryWhileRef()}) {
                if (ref != null) {
                    bean(c, ref, null);
                }
            }
        }
        for (OnExceptionDefinition e : c.getOnExceptions()) {
            exceptions(e);
            subExpression(context, e, e.getHandled());
            subExpression(context, e, e.getContinued());
            walk(context, e.getOutputs());
        }
        c.getOnCompletions().forEach(o -> walk(context, o.getOutputs()));
    }

    private void exceptions(OnExceptionDefinition e) {
        for (String name : e.getExceptions()) {
            try {
                Class.forName(name, false, RouteModelCheck.class.getClassLoader());
            } catch (ClassNotFoundException missing) {
                add(e, "onException names " + name + ", which is no class on the class path");
            }
        }
    }

    private void walk(DefaultCamelContext context, List<?> nodes) {
        if (nodes == null) {
            return;
        }
        for (Object node : nodes) {
            if (!(node instanceof LineNumberAware at) || !seen.add(node)) {
                continue;
            }
            if (node instanceof BeanDefinition b && b.getRef() != null) {
                bean(at, b.getRef(), b.getMethod());
            }
            if (node instanceof SendDefinition<?> send && !(node instanceof ToDynamicDefinition)) {
                endpoint(context, at, send.getEndpointUri());
            }
            if (node instanceof HasExpressionType e && e.getExpressionType() != null) {
                expression(context, at, e.getExpressionType(), node instanceof FilterDefinition
                        || node instanceof WhenDefinition);
            }
            if (node instanceof OnExceptionDefinition e) {
                exceptions(e);
                subExpression(context, e, e.getHandled());
            }
            if (node instanceof ChoiceDefinition choice) {
                walk(context, choice.getWhenClauses());
                if (choice.getOtherwise() != null) {
                    walk(context, List.of(choice.getOtherwise()));
                }
            }
            if (node instanceof TryDefinition t) {
                walk(context, t.getCatchClauses());
                if (t.getFinallyClause() != null) {
                    walk(context, List.of(t.getFinallyClause()));
                }
            }
            if (node instanceof ProcessorDefinition<?> p) {
                walk(context, p.getOutputs());
            }
            if (node instanceof BasicOutputExpressionNode b) {
                walk(context, b.getOutputs());
            }
        }
    }

    private void subExpression(DefaultCamelContext context, LineNumberAware at, ExpressionSubElementDefinition sub) {
        if (sub != null && sub.getExpressionType() != null) {
            expression(context, at, sub.getExpressionType(), true);
        }
    }

    private void expression(DefaultCamelContext context, LineNumberAware at, ExpressionDefinition e,
                            boolean predicate) {
        if (e instanceof MethodCallExpression m) {
            if (m.getRef() != null) {
                bean(at, m.getRef(), m.getMethod());
            }
            return;
        }
        if (!"simple".equals(e.getLanguage()) || e.getExpression() == null) {
            return;
        }
        try {
            String text = context.resolvePropertyPlaceholders(e.getExpression());
            var simple = context.resolveLanguage("simple");
            if (predicate) {
                simple.createPredicate(text);
            } else {
                simple.createExpression(text);
            }
        } catch (RuntimeException failed) {
            add(at, "simple " + (predicate ? "predicate" : "expression") + " \"" + e.getExpression()
                    + "\" does not compile: " + OneLineError.describe(failed));
        }
    }

    /** @param method as the route gives it: a name, or a call {@code name(arg, ...)}; null for none */
    private void bean(LineNumberAware at, String ref, String method) {
        Object bean = beans.apply(ref);
        if (bean == null) {
            add(at, "no bean '" + ref + "' is bound (the names a route can use: routes/README.md, Beans)");
            return;
        }
        if (method == null || method.isBlank()) {
            return;
        }
        BeanCall call = BeanCall.parse(method);
        List<Method> named = Stream.of(bean.getClass().getMethods())
                .filter(m -> m.getName().equals(call.name()) && !Modifier.isStatic(m.getModifiers())).toList();
        if (named.isEmpty()) {
            Set<String> offered = new TreeSet<>();
            for (Method m : bean.getClass().getMethods()) {
                if (m.getDeclaringClass() != Object.class && !Modifier.isStatic(m.getModifiers())) {
                    offered.add(m.getName());
                }
            }
            add(at, "bean '" + ref + "' has no method '" + call.name() + "' (it has: " + String.join(", ", offered)
                    + ")");
        } else if (call.arguments() >= 0 && named.stream().noneMatch(m -> m.getParameterCount() == call.arguments())) {
            Set<Integer> counts = new TreeSet<>();
            named.forEach(m -> counts.add(m.getParameterCount()));
            add(at, "bean '" + ref + "' method '" + call.name() + "' takes " + counts + " parameter(s), the route passes "
                    + call.arguments());
        }
    }

    private void endpoint(DefaultCamelContext context, LineNumberAware at, String uri) {
        if (uri == null) {
            return;
        }
        String resolved;
        try {
            resolved = context.resolvePropertyPlaceholders(uri);
        } catch (RuntimeException e) {
            add(at, "endpoint " + uri + ": " + OneLineError.describe(e) + " (set it in application-<profile>.properties"
                    + " or with -D)");
            return;
        }
        int colon = resolved.indexOf(':');
        String scheme = colon < 0 ? resolved : resolved.substring(0, colon);
        if (scheme.isBlank() || context.getComponent(scheme, true, false) == null) {
            add(at, "endpoint " + resolved.replaceAll("\\?.*", "") + ": no component '" + scheme
                    + "' on the class path (a dependency in pom.xml and a build: routes/README.md, Components)");
            return;
        }
        if ("platform-http".equals(scheme) && !Boolean.parseBoolean(properties.getProperty(SERVER_ENABLED, "false"))) {
            add(at, "endpoint " + resolved + " needs Camel's HTTP server: set " + SERVER_ENABLED
                    + "=true (port camel.server.port)");
        }
        for (String ref : EndpointRefs.in(resolved)) {
            if (beans.apply(ref) == null) {
                add(at, "endpoint " + resolved.replaceAll("\\?.*", "") + " names bean '#" + ref + "', which is not bound");
            }
        }
    }

    private void add(Object node, String problem) {
        LineNumberAware at = node instanceof LineNumberAware l ? l : null;
        problems.add(RouteProblem.at(at == null ? null : at.getLocation(), at == null ? 0 : at.getLineNumber(), problem));
    }
}
