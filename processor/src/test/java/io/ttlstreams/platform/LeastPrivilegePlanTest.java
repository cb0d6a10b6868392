package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.platform.Acl.Resource;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/**
 * The plan grants each principal what it does and nothing wider: no wildcard, no {@code All}, prefixes that cover only
 * their principal's own topics, {@code Write} on source topics for the processor only where it can resync, {@code
 * DescribeConfigs} only where start-up checks a setting. (The embedded broker enforces exactly these, and {@code
 * LeastPrivilegeIT} shows each one used.)
 */
class LeastPrivilegePlanTest {

    private static AclPlan plan(String... keyValues) {
        return ExamplePlatform.of(TestConfigs.props(keyValues)).acls();
    }

    private static KafkaPrincipal principal(AclPlan plan, String user) {
        return plan.principal(user).orElseThrow();
    }

    private static Acl acl(AclPlan plan, String user, String name) {
        return principal(plan, user).acls().stream()
                .filter(acl -> acl.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void shouldNameEveryResourceAndOperationWhenRenderedFromTheExample() {
        AclPlan plan = ExamplePlatform.example().acls();

        assertThat(plan.principals()).flatExtracting(KafkaPrincipal::acls).allSatisfy(acl -> {
            assertThat(acl.name()).isNotIn("", "*");
            assertThat(acl.operations()).doesNotContain("All");
        });
        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl-streams-").operations())
                .containsExactly("Create", "Read", "Write");
        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl-streams-").prefixed()).isTrue();
        assertThat(principal(plan, AclPlan.PROCESSOR_USER).acls())
                .filteredOn(acl -> acl.resource() == Resource.TRANSACTIONAL_ID)
                .singleElement()
                .satisfies(acl -> assertThat(acl.operations()).containsExactly("Write"));
        assertThat(acl(plan, AclPlan.CONNECT_USER, "ttl-connect-").operations())
                .containsExactly("Read", "Write", "Create");
    }

    @Test
    void shouldLetTheProcessorWriteSourceTopicsOnlyWhenItCanResync() {
        assertThat(acl(plan(), AclPlan.PROCESSOR_USER, "app.sessions").operations())
                .containsExactly("Read");
        Acl resyncing = acl(plan("ttl.mongodb.uri", "mongodb://mongo:27017"), AclPlan.PROCESSOR_USER, "app.sessions");
        assertThat(resyncing.operations()).containsExactly("Read", "Write");
        assertThat(resyncing.reason()).contains("resync").contains("ttl.mongodb.uri");
        // Never the heartbeats, which only the source connectors write.
        assertThat(principal(plan("ttl.mongodb.uri", "mongodb://mongo:27017"), AclPlan.PROCESSOR_USER)
                        .acls())
                .filteredOn(acl -> acl.name().startsWith("__mongodb_heartbeats."))
                .allSatisfy(acl -> assertThat(acl.operations()).containsExactly("Describe"));
    }

    @Test
    void shouldAskForDescribeConfigsOnlyWhereStartUpChecksASetting() {
        AclPlan plan = plan("ttl.audit.topic", "ttl.audit");

        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl.audit").operations()).containsExactly("Write");
        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl.deletes").operations())
                .containsExactly("Write", "DescribeConfigs");
        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl.dlq").operations())
                .containsExactly("Write", "DescribeConfigs");
        assertThat(acl(plan, AclPlan.PROCESSOR_USER, "ttl.control").operations())
                .containsExactly("Read", "Write", "DescribeConfigs");
        assertThat(acl(plan, AclPlan.OPERATOR_USER, "ttl.audit").operations()).containsExactly("Read");
    }

    @Test
    void shouldRefuseAPrefixThatCoversAnotherRolesTopicsWhenTheNamesCollide() {
        assertThatThrownBy(() -> plan("application.id", "ttl"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("User:ttl-processor")
                .hasMessageContaining("ttl-*")
                .hasMessageContaining("User:ttl-connect's topics ttl-connect-*")
                .hasMessageContaining("application.id");
        assertThatThrownBy(() -> plan("ttl.delete.topic", "ttl-streams-deletes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl-streams-*")
                .hasMessageContaining("topic ttl-streams-deletes");
    }

    @Test
    void shouldRenderOneBindingPerPrincipalResourceAndOperationWhenAppliedToABroker() {
        AclPlan plan = ExamplePlatform.example().acls();
        List<AclBinding> bindings = plan.bindings();

        assertThat(bindings)
                .hasSize(plan.principals().stream()
                        .flatMap(principal -> principal.acls().stream())
                        .mapToInt(acl -> acl.operations().size())
                        .sum());
        assertThat(bindings)
                .anySatisfy(binding -> {
                    assertThat(binding.entry().principal()).isEqualTo("User:ttl-processor");
                    assertThat(binding.entry().operation()).isEqualTo(AclOperation.DESCRIBE_CONFIGS);
                    assertThat(binding.pattern().name()).isEqualTo("ttl.deletes");
                    assertThat(binding.pattern().patternType()).isEqualTo(PatternType.LITERAL);
                })
                .anySatisfy(binding -> {
                    assertThat(binding.pattern().resourceType()).isEqualTo(ResourceType.TRANSACTIONAL_ID);
                    assertThat(binding.pattern().patternType()).isEqualTo(PatternType.PREFIXED);
                    assertThat(binding.pattern().name()).isEqualTo("ttl-streams-");
                })
                .allSatisfy(binding -> assertThat(binding.entry().host()).isEqualTo("*"));
    }

    @Test
    void shouldRefuseAWildcardOrAllWhenAnAclIsMade() {
        assertThatThrownBy(() -> new Acl(Resource.TOPIC, "*", false, List.of("Read"), "everything"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Acl(Resource.TOPIC, "ttl.deletes", false, List.of("All"), "anything"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AclPlan.operation("Everything")).isInstanceOf(IllegalArgumentException.class);
        assertThat(AclPlan.operation("DescribeConfigs")).isEqualTo(AclOperation.DESCRIBE_CONFIGS);
    }
}
