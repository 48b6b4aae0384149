package org.ingestquarantine.cli;

/**
 * A bean method as a route names it: {@code name}, or a call {@code name(arg, ...)} whose arguments are Simple
 * expressions ({@code ${exchangeProperty.iqMessage}}), constants or quoted strings.
 *
 * @param name the method's name
 * @param arguments how many arguments the call passes, or -1 when it gives none (Camel then binds by type)
 */
record BeanCall(String name, int arguments) {

    /** @return the call {@code method} spells; commas inside {@code ${...}}, parentheses or quotes do not count */
    static BeanCall parse(String method) {
        String m = method.strip();
        int open = m.indexOf('(');
        if (open < 0) {
            return new BeanCall(m, -1);
        }
        String inside = m.substring(open + 1, m.lastIndexOf(')') > open ? m.lastIndexOf(')') : m.length()).strip();
        if (inside.isEmpty()) {
            return new BeanCall(m.substring(0, open).strip(), 0);
        }
        int depth = 0;
        int count = 1;
        char quote = 0;
        for (char c : inside.toCharArray()) {
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '{') {
                depth++;
            } else if (c == ')' || c == '}') {
                depth--;
            } else if (c == ',' && depth == 0) {
                count++;
            }
        }
        return new BeanCall(m.substring(0, open).strip(), count);
    }
}
