package io.ttlstreams.rules;

import io.ttlstreams.contract.NamespacePattern;
import java.util.List;
import org.bson.BsonDocument;

/** Builds rules for tests, so that each test states only what it is about. */
final class RuleBuilder {

    private final String name;
    private final TtlMode mode;
    private final String field;
    private String namespace = "app.sessions";
    private long expireAfterSeconds = 10;
    private FieldFormat fieldFormat = FieldFormat.DATE;
    private PartialFilter partialFilter;
    private String documentTtlField;
    private String modifiedField;

    private RuleBuilder(String name, TtlMode mode, String field) {
        this.name = name;
        this.mode = mode;
        this.field = field;
    }

    /** A field rule on app.sessions expiring 10 s after {@code field}. */
    static RuleBuilder fieldRule(String name, String field) {
        return new RuleBuilder(name, TtlMode.FIELD, field);
    }

    /** A last-modified rule on app.sessions expiring 10 s after the change. */
    static RuleBuilder lastModifiedRule(String name) {
        return new RuleBuilder(name, TtlMode.LAST_MODIFIED, null);
    }

    RuleBuilder namespace(String pattern) {
        this.namespace = pattern;
        return this;
    }

    RuleBuilder expireAfterSeconds(long seconds) {
        this.expireAfterSeconds = seconds;
        return this;
    }

    RuleBuilder format(FieldFormat format) {
        this.fieldFormat = format;
        return this;
    }

    RuleBuilder filter(String json) {
        this.partialFilter = PartialFilter.parse(BsonDocument.parse(json));
        return this;
    }

    RuleBuilder documentTtlField(String path) {
        this.documentTtlField = path;
        return this;
    }

    RuleBuilder modifiedField(String path) {
        this.modifiedField = path;
        return this;
    }

    TtlRule build() {
        return new TtlRule(
                name,
                NamespacePattern.parse(namespace),
                mode,
                field,
                expireAfterSeconds,
                fieldFormat,
                partialFilter,
                documentTtlField,
                modifiedField,
                null);
    }

    /** This rule alone. */
    TtlRules alone() {
        return new TtlRules(List.of(build()));
    }

    static TtlRules rules(RuleBuilder... builders) {
        return new TtlRules(List.of(builders).stream().map(RuleBuilder::build).toList());
    }

    static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }
}
