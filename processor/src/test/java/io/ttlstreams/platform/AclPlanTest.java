package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.RepositoryFiles;
import io.ttlstreams.platform.TopicSpec.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ACLs give each role what the trust model says, and docs/trust-model.md shows exactly the generated ones. */
class AclPlanTest {

    private static final Path TRUST_MODEL = RepositoryFiles.root().resolve("docs/trust-model.md");

    private static List<KafkaPrincipal> writersOf(AclPlan acls, String topic) {
        return acls.principals().stream()
                .filter(principal -> principal.acls().stream()
                        .anyMatch(acl -> acl.resource() == Acl.Resource.TOPIC
                                && !acl.prefixed()
                                && acl.name().equals(topic)
                                && (acl.operations().contains("Write")
                                        || acl.operations().contains("All"))))
                .toList();
    }

    @Test
    void shouldLetOnlyTheProcessorWriteTheDeleteTopicWhenRenderedFromTheExample() {
        AclPlan acls = ExamplePlatform.example().acls();

        assertThat(writersOf(acls, "ttl.deletes"))
                .extracting(KafkaPrincipal::user)
                .containsExactly("ttl-processor");
        assertThat(acls.principals())
                .allSatisfy(principal -> assertThat(principal.acls())
                        .noneMatch(acl -> acl.name().equals("*") || acl.name().isEmpty()));
    }

    @Test
    void shouldGrantTheProcessorEveryTopicItUsesWhenRenderedFromTheExample() {
        Platform platform = ExamplePlatform.example();
        KafkaPrincipal processor = platform.acls().principals().stream()
                .filter(principal -> principal.user().equals(AclPlan.PROCESSOR_USER))
                .findFirst()
                .orElseThrow();

        for (TopicSpec topic : platform.topics().topics()) {
            boolean granted =
                    processor.acls().stream().anyMatch(acl -> acl.name().equals(topic.name()));
            assertThat(granted)
                    .as("processor ACL on %s", topic.name())
                    .isEqualTo(topic.role().usedByProcessor() || topic.role() == Role.HEARTBEAT);
        }
    }

    @Test
    void shouldShowTheGeneratedAclsInTheTrustModelWhenTheRulesChange() throws IOException {
        String page = Files.readString(TRUST_MODEL);
        AclPlan acls = ExamplePlatform.example().acls();

        assertThat(between(page, "acl-table"))
                .as("docs/trust-model.md's ACL table is stale: paste KafkaCliScript.aclTable of the example"
                        + " (ttl-streams platform --format json shows the same ACLs)")
                .isEqualTo(KafkaCliScript.aclTable(acls));
        assertThat(between(page, "acl-commands"))
                .as(
                        "docs/trust-model.md's kafka-acls commands are stale: paste the ACL part of"
                                + " ttl-streams platform --format kafka-cli --config connect-config/example-processor.properties")
                .isEqualTo("```bash\n" + KafkaCliScript.aclCommands(acls) + "```\n");
    }

    /** The text between {@code <!-- name:start -->} and {@code <!-- name:end -->}, without the marker lines. */
    static String between(String page, String name) {
        String start = "<!-- " + name + ":start -->\n";
        String end = "<!-- " + name + ":end -->";
        int from = page.indexOf(start);
        int to = page.indexOf(end);
        assertThat(from).as("marker %s", start.strip()).isNotNegative();
        assertThat(to).as("marker %s", end).isGreaterThan(from);
        return page.substring(from + start.length(), to);
    }
}
