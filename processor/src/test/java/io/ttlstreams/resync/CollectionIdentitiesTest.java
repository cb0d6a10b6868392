package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.CollectionIdentities.Reason;
import io.ttlstreams.resync.CollectionIdentities.Rewrite;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class CollectionIdentitiesTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace EVENTS = Namespace.parse("app.events");
    private static final BsonValue FIRST = new BsonBinary(UUID.randomUUID());
    private static final BsonValue SECOND = new BsonBinary(UUID.randomUUID());
    private static final BsonValue OTHER = new BsonBinary(UUID.randomUUID());

    private final CollectionIdentities identities = new CollectionIdentities();

    private static Map<Namespace, BsonValue> present(Object... namespacesAndUuids) {
        Map<Namespace, BsonValue> present = new LinkedHashMap<>();
        for (int i = 0; i < namespacesAndUuids.length; i += 2) {
            present.put((Namespace) namespacesAndUuids[i], (BsonValue) namespacesAndUuids[i + 1]);
        }
        return present;
    }

    @Test
    void shouldReportNothingAtTheFirstCheckWhichIsTheBaseline() {
        assertThat(identities.observe(present(SESSIONS, FIRST))).isEmpty();
    }

    @Test
    void shouldReportNothingWhileEveryCollectionKeepsItsUuid() {
        identities.observe(present(SESSIONS, FIRST, EVENTS, OTHER));

        assertThat(identities.observe(present(SESSIONS, FIRST, EVENTS, OTHER))).isEmpty();
    }

    @Test
    void shouldReportAReplacementWhenTheUuidChangedBetweenTwoChecks() {
        identities.observe(present(SESSIONS, FIRST, EVENTS, OTHER));

        assertThat(identities.observe(present(SESSIONS, SECOND, EVENTS, OTHER)))
                .containsExactly(new Rewrite(SESSIONS, Reason.REPLACED, FIRST, SECOND));
    }

    @Test
    void shouldReportACreationWhenADroppedCollectionIsBack() {
        identities.observe(present(SESSIONS, FIRST));
        assertThat(identities.observe(present())).isEmpty();

        assertThat(identities.observe(present(SESSIONS, SECOND)))
                .containsExactly(new Rewrite(SESSIONS, Reason.CREATED, null, SECOND));
    }

    @Test
    void shouldReportARewriteOnceAndMeasureTheNextCheckAgainstTheNewUuid() {
        identities.observe(present(SESSIONS, FIRST));
        identities.observe(present(SESSIONS, SECOND));

        assertThat(identities.observe(present(SESSIONS, SECOND))).isEmpty();
    }

    @Test
    void shouldReportACollectionThatDidNotExistAtTheBaselineWhenItAppears() {
        identities.observe(present());

        assertThat(identities.observe(present(EVENTS, OTHER)))
                .extracting(Rewrite::namespace, Rewrite::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(EVENTS, Reason.CREATED));
    }

    @Test
    void shouldTagTheAutomaticResyncMetricReplacedOrCreatedWhenTheReasonIsCounted() {
        assertThat(Reason.REPLACED.tag()).isEqualTo("replaced");
        assertThat(Reason.CREATED.tag()).isEqualTo("created");
    }
}
