package io.ttlstreams.resync;

import io.ttlstreams.contract.Namespace;
import java.util.Objects;
import java.util.Optional;

/**
 * What a resync reads: every rule's namespaces, or those of one rule, or one namespace.
 *
 * @param namespace only this collection, which some selected rule must cover
 * @param rule only the namespaces of this rule
 */
public record ResyncSelection(Optional<Namespace> namespace, Optional<String> rule) {

    /** Every namespace of every rule, as the periodic sweep reads them. */
    public static final ResyncSelection ALL = new ResyncSelection(Optional.empty(), Optional.empty());

    public ResyncSelection {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(rule, "rule");
        if (namespace.isPresent() && namespace.get().isDatabase()) {
            throw new IllegalArgumentException(
                    "A resync reads one collection, db.coll, not database " + namespace.get());
        }
    }
}
