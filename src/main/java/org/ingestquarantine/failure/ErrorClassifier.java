package org.ingestquarantine.failure;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps an exception to its {@link ErrorClass} and reason by a table of rules; the product's table is
 * {@code delivery.ErrorTaxonomy}. Immutable and thread-safe.
 *
 * <p>Order of decision:
 * <ol>
 *   <li>SQLSTATE rules: the first {@link SQLException} in the cause chain whose two-character SQLSTATE class
 *       has a rule decides (a database error means what its SQLSTATE says, whatever its Java type);</li>
 *   <li>type rules: the cause chain is walked from the outermost exception inwards; for each exception its
 *       type and then its supertypes are looked up, and the first hit decides;</li>
 *   <li>wrapper rules ({@link Builder#wrapperType}): types that may wrap the document's own failure (Camel's bean
 *       invocation, an expression calling our bean), consulted only when no type rule matched anywhere in the
 *       chain, again outermost first; so the document's exception, however deep, wins over its wrapper;</li>
 *   <li>otherwise {@link ErrorClass#UNCLASSIFIED}, a gap in the taxonomy that alerts.</li>
 * </ol>
 * The reason code is the deciding exception's own when it is {@link Reasoned} and names one, else the rule's.
 * Cause chains are walked cycle-safe.
 */
public final class ErrorClassifier {

    /**
     * One line of the table.
     *
     * @param type the exception type a type rule matches (itself and subtypes), {@code null} for a SQLSTATE rule
     * @param sqlStateClass the two-character SQLSTATE class a SQLSTATE rule matches, {@code null} for a type rule
     * @param errorClass the class it decides
     * @param reason the reason recorded when the exception names none
     */
    public record Rule(Class<? extends Throwable> type, String sqlStateClass, ErrorClass errorClass, String reason) {
    }

    private final Map<String, Rule> bySqlState;
    private final Map<Class<?>, Rule> byType;
    private final Map<Class<?>, Rule> byWrapperType;

    private ErrorClassifier(Map<String, Rule> bySqlState, Map<Class<?>, Rule> byType, Map<Class<?>, Rule> byWrapperType) {
        this.bySqlState = Collections.unmodifiableMap(bySqlState);
        this.byType = Collections.unmodifiableMap(byType);
        this.byWrapperType = Collections.unmodifiableMap(byWrapperType);
    }

    /** @return an empty table to add rules to */
    public static Builder builder() {
        return new Builder();
    }

    /** @return every rule, SQLSTATE rules first, then type rules, then wrapper rules, each in the order added */
    public List<Rule> rules() {
        List<Rule> all = new ArrayList<>(bySqlState.values());
        all.addAll(byType.values());
        all.addAll(byWrapperType.values());
        return List.copyOf(all);
    }

    /**
     * @param failure the exception that ended an attempt, never {@code null}
     * @return its class and reason
     */
    public Classification classify(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().length() >= 2) {
                Rule rule = bySqlState.get(sql.getSQLState().substring(0, 2));
                if (rule != null) {
                    return decided(rule, t);
                }
                break;
            }
        }
        for (Map<Class<?>, Rule> table : List.of(byType, byWrapperType)) {
            seen.clear();
            for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
                for (Class<?> type = t.getClass(); type != null; type = type.getSuperclass()) {
                    Rule rule = table.get(type);
                    if (rule != null) {
                        return decided(rule, t);
                    }
                }
            }
        }
        String reason = failure instanceof Reasoned r && r.reasonCode() != null ? r.reasonCode() : Classification.UNKNOWN_REASON;
        return new Classification(ErrorClass.UNCLASSIFIED, reason, failure);
    }

    /**
     * Whether an exception of this type is one the type rules decide on (step 2 above): a type rule names it or one of
     * its superclasses. For reading a failure back from its evidence, where the exceptions are known only by type.
     *
     * @param type an exception type
     * @return true when a type rule (not a SQLSTATE or wrapper rule) matches it
     */
    public boolean hasTypeRule(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            if (byType.containsKey(t)) {
                return true;
            }
        }
        return false;
    }

    private static Classification decided(Rule rule, Throwable t) {
        String reason = t instanceof Reasoned r && r.reasonCode() != null ? r.reasonCode() : rule.reason();
        return new Classification(rule.errorClass(), reason, t);
    }

    /** Collects rules; a type or SQLSTATE class may have one rule only. */
    public static final class Builder {

        private final Map<String, Rule> bySqlState = new LinkedHashMap<>();
        private final Map<Class<?>, Rule> byType = new LinkedHashMap<>();
        private final Map<Class<?>, Rule> byWrapperType = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * @param type an exception type; its subtypes match too unless they have a rule of their own
         * @param errorClass the class it decides
         * @param reason the reason when the exception names none
         * @return this builder
         * @throws IllegalArgumentException when {@code type} already has a rule
         */
        public Builder type(Class<? extends Throwable> type, ErrorClass errorClass, String reason) {
            return add(byType, type, errorClass, reason);
        }

        /**
         * A type that may wrap the document's own failure: it decides only when no {@link #type} rule matches
         * anywhere in the cause chain.
         *
         * @param type an exception type; its subtypes match too unless they have a rule of their own
         * @param errorClass the class it decides
         * @param reason the reason when the exception names none
         * @return this builder
         * @throws IllegalArgumentException when {@code type} already has a rule
         */
        public Builder wrapperType(Class<? extends Throwable> type, ErrorClass errorClass, String reason) {
            return add(byWrapperType, type, errorClass, reason);
        }

        private Builder add(Map<Class<?>, Rule> table, Class<? extends Throwable> type, ErrorClass errorClass,
                            String reason) {
            if (byType.containsKey(type) || byWrapperType.containsKey(type)) {
                throw new IllegalArgumentException("two rules for " + type.getName());
            }
            table.put(type, new Rule(type, null, errorClass, reason));
            return this;
        }

        /**
         * @param sqlStateClass the first two characters of a SQLSTATE (PostgreSQL Appendix A, "Error Codes")
         * @param errorClass the class it decides
         * @param reason the reason recorded
         * @return this builder
         * @throws IllegalArgumentException when the SQLSTATE class is not two characters or already has a rule
         */
        public Builder sqlState(String sqlStateClass, ErrorClass errorClass, String reason) {
            if (sqlStateClass.length() != 2) {
                throw new IllegalArgumentException("a SQLSTATE class has two characters, was '" + sqlStateClass + "'");
            }
            if (bySqlState.putIfAbsent(sqlStateClass, new Rule(null, sqlStateClass, errorClass, reason)) != null) {
                throw new IllegalArgumentException("two rules for SQLSTATE class " + sqlStateClass);
            }
            return this;
        }

        /** @return the classifier */
        public ErrorClassifier build() {
            return new ErrorClassifier(new LinkedHashMap<>(bySqlState), new LinkedHashMap<>(byType),
                    new LinkedHashMap<>(byWrapperType));
        }
    }
}
