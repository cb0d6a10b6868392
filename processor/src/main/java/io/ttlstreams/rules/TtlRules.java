package io.ttlstreams.rules;

import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * The configured rules, evaluated together. Several rules may cover one namespace (say, a field rule and a
 * last-modified safety net); the earliest deadline wins.
 *
 * <p>Instances are immutable and thread-safe; {@link #evaluate} is a pure function.
 */
public final class TtlRules {

    private final List<TtlRule> rules;
    private final Map<String, TtlRule> byName = new HashMap<>();
    private final Map<String, Long> shapes = new HashMap<>();

    /**
     * @param rules the rules in configuration order, which breaks ties between equal deadlines
     * @throws IllegalArgumentException when two rules share a name, since decisions identify rules by name
     */
    public TtlRules(List<TtlRule> rules) {
        this.rules = List.copyOf(rules);
        for (TtlRule rule : this.rules) {
            if (byName.put(rule.name(), rule) != null) {
                throw new IllegalArgumentException("Two rules are named " + rule.name());
            }
            shapes.put(rule.name(), rule.shape());
        }
    }

    /** The {@link TtlRule#shape() shape} of one of these rules, computed once. */
    public long shape(TtlRule rule) {
        Long shape = shapes.get(rule.name());
        if (shape == null || byName.get(rule.name()) != rule) {
            throw new IllegalArgumentException("Not one of these rules: " + rule.name());
        }
        return shape;
    }

    /** The rules, in configuration order. */
    public List<TtlRule> rules() {
        return rules;
    }

    /**
     * Each pair of rules that read the same field of the same namespace, in list order: one of them can never decide
     * a deadline, since both read one value.
     */
    public List<List<TtlRule>> sameFieldPairs() {
        List<List<TtlRule>> pairs = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            for (int j = i + 1; j < rules.size(); j++) {
                TtlRule first = rules.get(i);
                TtlRule second = rules.get(j);
                if (first.field() != null
                        && first.field().equals(second.field())
                        && first.namespace().equals(second.namespace())) {
                    pairs.add(List.of(first, second));
                }
            }
        }
        return pairs;
    }

    /** The rules that cover {@code namespace}, in configuration order; unmodifiable. */
    public List<TtlRule> covering(Namespace namespace) {
        List<TtlRule> covering = new ArrayList<>(rules.size());
        for (TtlRule rule : rules) {
            if (rule.namespace().matches(namespace)) {
                covering.add(rule);
            }
        }
        return Collections.unmodifiableList(covering);
    }

    /** The rule called {@code name}; empty when there is none (any more). */
    public Optional<TtlRule> rule(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /**
     * When, if ever, {@code document} expires. It looks at the document as it is now and at nothing remembered, so
     * the latest version of a document always decides, as in Firestore; the caller reschedules on every change.
     *
     * @param namespace the document's collection
     * @param document  the full document; {@code null} (a change event without one) never expires
     * @param eventTime when the document last changed, which last-modified rules count from
     * @return the earliest deadline among the applicable rules, with the winning rule's name and condition; or, when
     *         no rule expires the document, a decision whose reason lists each rule's reason. In either case
     *         {@link ExpiryDecision#documentTtlIgnored()} is set when any applicable rule ignored an invalid
     *         per-document TTL, and {@link ExpiryDecision#implausibleValue()} when any found an implausible epoch
     *         number, so that every such document is counted.
     */
    public ExpiryDecision evaluate(Namespace namespace, BsonDocument document, Instant eventTime) {
        return evaluate(namespace, document, eventTime, false);
    }

    /**
     * {@link #evaluate} for a document read by a resync rather than reported by a change event: {@code readTime} is
     * when it was read, and a last-modified rule counts from its {@code modified.field} where that holds a date,
     * which is the document's own record of its last change.
     */
    public ExpiryDecision evaluateResync(Namespace namespace, BsonDocument document, Instant readTime) {
        return evaluate(namespace, document, readTime, true);
    }

    private ExpiryDecision evaluate(Namespace namespace, BsonDocument document, Instant time, boolean resync) {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(time, "time");
        List<TtlRule> applicable = covering(namespace);
        if (applicable.isEmpty()) {
            return ExpiryDecision.never(() -> "no rule for namespace " + namespace, false);
        }
        if (document == null) {
            return ExpiryDecision.never("the change event carries no full document");
        }
        ExpiryDecision earliest = null;
        List<ExpiryDecision> notExpiring = new ArrayList<>();
        boolean documentTtlIgnored = false;
        boolean implausible = false;
        for (TtlRule rule : applicable) {
            ExpiryDecision decision = evaluate(rule, document, time, resync);
            documentTtlIgnored |= decision.documentTtlIgnored();
            implausible |= decision.implausibleValue();
            if (!decision.expires()) {
                notExpiring.add(decision);
            } else if (earliest == null || decision.deadline().isBefore(earliest.deadline())) {
                earliest = decision;
            }
        }
        if (earliest == null) {
            return ExpiryDecision.never(
                            () -> String.join(
                                    "; ",
                                    notExpiring.stream()
                                            .map(ExpiryDecision::reason)
                                            .toList()),
                            documentTtlIgnored)
                    .withFlags(documentTtlIgnored, implausible);
        }
        return earliest.withFlags(documentTtlIgnored, implausible);
    }

    private static ExpiryDecision evaluate(TtlRule rule, BsonDocument document, Instant time, boolean resync) {
        PartialFilter filter = rule.partialFilter();
        if (filter != null && !filter.matches(document)) {
            return ExpiryDecision.never(() -> rule.explain("partial filter " + filter + " does not match"), false);
        }
        ExpiryDecision decision = rule.mode() == TtlMode.FIELD
                ? FieldExpiry.evaluate(rule, document, time)
                : LastModifiedExpiry.evaluate(rule, document, time, resync);
        if (filter != null && decision.expires()) {
            // The delete re-checks the filter too: a document updated out of the filter's scope must survive.
            // The condition was built for this decision alone, so extending it in place is safe.
            decision.condition().append("$and", new BsonArray(List.of(filter.expression())));
        }
        return rule.mark() != null && decision.expires() ? Marks.apply(rule, document, decision) : decision;
    }
}
