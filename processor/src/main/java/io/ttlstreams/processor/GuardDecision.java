package io.ttlstreams.processor;

import java.util.Objects;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * An operator's decision on the entries the blast-radius guard holds for one rule, as {@code ttl-streams approve}
 * writes it to the control topic (to every partition, so that every task applies it to its share): approve releases
 * them (they expire, subject to the throttle), reject cancels them (they wait for their document's next change). The
 * id makes a decision delivered twice, or sent twice, change nothing the second time.
 *
 * @param rule the rule whose held entries are decided on
 * @param approve true to release, false to reject
 * @param id the decision's identity, which each task remembers per rule
 */
public record GuardDecision(String rule, boolean approve, String id) {

    /** The top-level field that marks a control record as a decision rather than a namespace-wide event. */
    public static final String FIELD = "guardDecision";

    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,200}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    /** Checks the fields: a rule name as {@code ttl.rules} spells them and an id of at most 100 plain characters. */
    public GuardDecision {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(id, "id");
        if (!RULE_NAME.matcher(rule).matches()) {
            throw new IllegalArgumentException("A guard decision names a rule of letters, digits, - and _, not '"
                    + rule.substring(0, Math.min(rule.length(), 50)) + "'");
        }
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                    "A guard decision's id is 1 to 100 letters, digits, '.', '_', ':' or '-'");
        }
    }

    /**
     * The decision a control record holds.
     *
     * @throws IllegalArgumentException when it is no well-formed decision
     */
    static GuardDecision of(BsonDocument value) {
        if (value.size() != 1 || !value.get(FIELD).isDocument()) {
            throw new IllegalArgumentException("A guard decision is {\"" + FIELD + "\": {\"rule\": ..., \"decision\":"
                    + " \"approve\"|\"reject\", \"id\": ...}} and nothing else");
        }
        BsonDocument fields = value.getDocument(FIELD);
        String decision = string(fields, "decision");
        if (fields.size() != 3 || !(decision.equals("approve") || decision.equals("reject"))) {
            throw new IllegalArgumentException(
                    "A guard decision holds rule, decision (approve or reject) and id, and nothing else");
        }
        return new GuardDecision(string(fields, "rule"), decision.equals("approve"), string(fields, "id"));
    }

    /** The control record's value. */
    public String toJson() {
        return new BsonDocument(
                        FIELD,
                        new BsonDocument("rule", new BsonString(rule))
                                .append("decision", new BsonString(verb()))
                                .append("id", new BsonString(id)))
                .toJson();
    }

    /** "approve" or "reject". */
    public String verb() {
        return approve ? "approve" : "reject";
    }

    private static String string(BsonDocument fields, String name) {
        BsonValue value = fields.get(name);
        if (value == null || !value.isString()) {
            throw new IllegalArgumentException("A guard decision's " + name + " must be a string");
        }
        return value.asString().getValue();
    }
}
