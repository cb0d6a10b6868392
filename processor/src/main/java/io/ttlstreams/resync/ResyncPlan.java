package io.ttlstreams.resync;

import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.TtlRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The namespaces one resync reads, each with the source topic its events go to and the rules that apply to it, and
 * the namespaces it leaves out, with the reason.
 *
 * @param targets the namespaces to read, in rule order
 * @param skipped namespaces a selected rule covers but the resync cannot publish for, with the reason
 */
public record ResyncPlan(List<ResyncTarget> targets, Map<Namespace, String> skipped) {

    /**
     * One namespace to read.
     *
     * @param namespace the collection
     * @param topic the source topic its change events arrive on, which its resync events join: the same
     *     partitions, and so the same task, by construction
     * @param rules every rule covering the namespace, not only the selected ones: the processor evaluates them all on
     *     each document, so the documents must carry every field any of them reads
     */
    public record ResyncTarget(Namespace namespace, String topic, List<TtlRule> rules) {}

    public ResyncPlan {
        targets = List.copyOf(targets);
        skipped = Map.copyOf(skipped);
    }

    /**
     * The plan for {@code selection}.
     *
     * @param collectionsOf the collection names of a database, for {@code db.*} rules (MongoDB's
     *     listCollectionNames); {@code system.*} collections are never read
     * @throws IllegalArgumentException when the selection names an unknown rule, or a namespace no selected rule
     *     covers
     */
    public static ResyncPlan of(
            TtlStreamsConfig config, ResyncSelection selection, Function<String, List<String>> collectionsOf) {
        List<TtlRule> selected = selectedRules(config, selection.rule());
        Set<Namespace> namespaces = new LinkedHashSet<>();
        if (selection.namespace().isPresent()) {
            Namespace namespace = selection.namespace().get();
            if (selected.stream().noneMatch(rule -> rule.namespace().matches(namespace))) {
                throw new IllegalArgumentException(
                        "No " + selection.rule().map(name -> "rule " + name).orElse("rule") + " covers " + namespace
                                + " (rules: " + describe(selected) + ")");
            }
            namespaces.add(namespace);
        } else {
            for (TtlRule rule : selected) {
                Optional<Namespace> exact = rule.namespace().exactNamespace();
                if (exact.isPresent()) {
                    namespaces.add(exact.get());
                } else {
                    collectionsOf.apply(rule.namespace().database()).stream()
                            .filter(collection -> !collection.startsWith("system."))
                            .sorted()
                            .forEach(collection ->
                                    namespaces.add(Namespace.of(rule.namespace().database(), collection)));
                }
            }
        }
        List<ResyncTarget> targets = new ArrayList<>();
        Map<Namespace, String> skipped = new LinkedHashMap<>();
        for (Namespace namespace : namespaces) {
            Optional<String> topic = config.sourceTopics().stream()
                    .filter(candidate -> config.topicNamespaceMapping()
                            .namespaceOf(candidate)
                            .equals(Optional.of(namespace)))
                    .findFirst();
            if (topic.isEmpty()) {
                skipped.put(
                        namespace,
                        "no source topic carries it (" + SourceOptions.SOURCE_TOPICS_CONFIG + ": "
                                + config.sourceTopics() + "), so the processor reads none of its events");
                continue;
            }
            targets.add(new ResyncTarget(namespace, topic.get(), config.rules().covering(namespace)));
        }
        return new ResyncPlan(targets, skipped);
    }

    private static List<TtlRule> selectedRules(TtlStreamsConfig config, Optional<String> name) {
        if (name.isEmpty()) {
            return config.rules().rules();
        }
        return List.of(config.rules()
                .rule(name.get())
                .orElseThrow(() -> new IllegalArgumentException("No rule is named " + name.get() + " (rules: "
                        + describe(config.rules().rules()) + ")")));
    }

    private static String describe(List<TtlRule> rules) {
        return String.join(
                ", ",
                rules.stream()
                        .map(rule -> rule.name() + " on " + rule.namespace())
                        .toList());
    }
}
