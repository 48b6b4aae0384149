package org.ingestquarantine.operator;

/**
 * A value an operator gives, named as each front end names it: the command's option ({@code --reason}) and the HTTP
 * API's JSON field or query parameter ({@code reason}), so that a refusal speaks the words of whoever asked
 * ({@link BadOperatorInputException#forApi()}).
 */
public enum OperatorField {
    FINGERPRINT("--fingerprint", "fingerprint"),
    REASON("--reason", "reason"),
    OWNER("--owner", "owner"),
    SOURCE("--source", "source"),
    DOC_ID("--doc-id", "doc_id"),
    LIMIT("--limit", "limit"),
    RATE("--rate", "rate"),
    OLDER_THAN("--older-than", "older_than_days"),
    ACTOR("--actor", "actor");

    private final String option;
    private final String apiName;

    OperatorField(String option, String apiName) {
        this.option = option;
        this.apiName = apiName;
    }

    /** @return the command-line option, e.g. {@code --reason} */
    public String option() {
        return option;
    }

    /** @return the JSON field or query parameter of the HTTP API, e.g. {@code reason} */
    public String apiName() {
        return apiName;
    }
}
