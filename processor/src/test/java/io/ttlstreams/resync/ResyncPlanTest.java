package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import io.ttlstreams.rules.TtlRule;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResyncPlanTest {

    /** Two rules on app.sessions (one of them app.*), one on app.tokens, one on audit.*; topics list the watched. */
    private static final TtlStreamsConfig CONFIG = TestConfigs.config(
            "ttl.rules", "sessions,tokens,everything,audit",
            "ttl.rule.tokens.namespace", "app.tokens",
            "ttl.rule.tokens.field", "validUntil",
            "ttl.rule.everything.namespace", "app.*",
            "ttl.rule.everything.mode", "last-modified",
            "ttl.rule.everything.expire.after.seconds", "86400",
            "ttl.rule.audit.namespace", "audit.*",
            "ttl.rule.audit.field", "at",
            "ttl.source.topic.prefix", "mongo",
            "ttl.source.topics", "mongo.app.sessions,mongo.app.tokens,mongo.app.carts,mongo.audit.log");

    private static final Map<String, List<String>> COLLECTIONS =
            Map.of("app", List.of("tokens", "sessions", "carts", "drafts", "system.views"), "audit", List.of("log"));

    private static ResyncPlan plan(Optional<String> namespace, Optional<String> rule) {
        return ResyncPlan.of(CONFIG, new ResyncSelection(namespace.map(Namespace::parse), rule), COLLECTIONS::get);
    }

    private static List<String> rulesOf(ResyncTarget target) {
        return target.rules().stream().map(TtlRule::name).toList();
    }

    @Test
    void shouldReadEveryNamespaceOfEveryRuleOnceWithItsSourceTopic() {
        ResyncPlan plan = plan(Optional.empty(), Optional.empty());

        assertThat(plan.targets())
                .extracting(target -> target.namespace() + "->" + target.topic())
                .containsExactly(
                        "app.sessions->mongo.app.sessions",
                        "app.tokens->mongo.app.tokens",
                        "app.carts->mongo.app.carts",
                        "audit.log->mongo.audit.log");
        // app.* lists drafts too, which no source topic carries: the processor would never see its events.
        assertThat(plan.skipped()).containsOnlyKeys(Namespace.parse("app.drafts"));
        assertThat(plan.skipped().get(Namespace.parse("app.drafts"))).contains("no source topic carries it");
    }

    @Test
    void shouldGiveEachNamespaceEveryRuleCoveringItNotOnlyTheSelectedOne() {
        ResyncPlan plan = plan(Optional.empty(), Optional.of("sessions"));

        assertThat(plan.targets()).hasSize(1);
        assertThat(plan.targets().get(0).namespace()).isEqualTo(Namespace.parse("app.sessions"));
        // The processor evaluates both on every document, so the projection must carry what both read.
        assertThat(rulesOf(plan.targets().get(0))).containsExactly("sessions", "everything");
    }

    @Test
    void shouldReadOneNamespaceOfADatabaseWideRule() {
        ResyncPlan plan = plan(Optional.of("app.carts"), Optional.of("everything"));

        assertThat(plan.targets()).extracting(ResyncTarget::namespace).containsExactly(Namespace.parse("app.carts"));
        assertThat(rulesOf(plan.targets().get(0))).containsExactly("everything");
    }

    @Test
    void shouldRefuseAnUnknownRuleOrANamespaceNoSelectedRuleCovers() {
        assertThatThrownBy(() -> plan(Optional.empty(), Optional.of("carts")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No rule is named carts")
                .hasMessageContaining("sessions on app.sessions");
        assertThatThrownBy(() -> plan(Optional.of("app.carts"), Optional.of("tokens")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No rule tokens covers app.carts");
        assertThatThrownBy(() -> plan(Optional.of("other.things"), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No rule covers other.things");
    }
}
