package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.connection.ClusterType;
import com.mongodb.connection.ServerDescription;
import com.mongodb.connection.ServerType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One identity in every answer: the primary of a one-member replica set running MongoDB 7.0, the version whose
 * behaviour the stand-in plays, so that a driver decides features by the version the stand-in claims everywhere.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class StandInIdentityTest {

    /** MongoDB 7.0's wire version. */
    private static final int WIRE_VERSION_7_0 = 21;

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    @Test
    void shouldReportAReplicaSetPrimaryInHelloAndIsMasterAlike() {
        String address = "127.0.0.1:" + standIn.mongo.port();

        for (String command : List.of("hello", "isMaster")) {
            Document answer = standIn.app.runCommand(new Document(command, 1));

            assertThat(answer.getBoolean(command.equals("hello") ? "isWritablePrimary" : "ismaster"))
                    .as(command)
                    .isTrue();
            assertThat(answer.getString("setName")).as(command).isNotBlank();
            assertThat(answer.getList("hosts", String.class)).as(command).containsExactly(address);
            assertThat(answer.getString("primary")).as(command).isEqualTo(address);
            assertThat(answer.getString("me")).as(command).isEqualTo(address);
            assertThat(answer.getBoolean("secondary")).as(command).isFalse();
            assertThat(answer.getInteger("maxWireVersion")).as(command).isEqualTo(WIRE_VERSION_7_0);
            assertThat(answer.getInteger("logicalSessionTimeoutMinutes"))
                    .as(command)
                    .isPositive();
        }
    }

    @Test
    void shouldReportInBuildInfoTheVersionOfTheWireVersionHelloReports() {
        Document buildInfo = standIn.app.runCommand(new Document("buildInfo", 1));
        Document hello = standIn.app.runCommand(new Document("hello", 1));

        assertThat(buildInfo.getString("version")).startsWith("7.0.");
        assertThat(buildInfo.getList("versionArray", Integer.class)).startsWith(7, 0);
        assertThat(hello.getInteger("maxWireVersion")).isEqualTo(WIRE_VERSION_7_0);
        Document status = standIn.client.getDatabase("admin").runCommand(new Document("replSetGetStatus", 1));
        assertThat(status.getString("set")).isEqualTo(hello.getString("setName"));
        assertThat(status.getInteger("myState")).as("PRIMARY").isEqualTo(1);
    }

    @Test
    void shouldBeSeenByTheDriverAsTheWritablePrimaryOfAReplicaSet() {
        standIn.app.runCommand(new Document("ping", 1));

        var cluster = standIn.client.getClusterDescription();
        assertThat(cluster.getType()).isEqualTo(ClusterType.REPLICA_SET);
        assertThat(cluster.getServerDescriptions())
                .extracting(ServerDescription::getType)
                .containsExactly(ServerType.REPLICA_SET_PRIMARY);
        assertThat(cluster.getLogicalSessionTimeoutMinutes()).isNotNull();
    }

    @Test
    void shouldBeSeenByTheDriverAsAMongosWhenToldToPlayOne() {
        try (DrivenStandIn mongos = new DrivenStandIn(StandInSettings.DEFAULTS.asMongos())) {
            Document hello = mongos.client.getDatabase("admin").runCommand(new Document("hello", 1));

            assertThat(hello.getString("msg")).isEqualTo("isdbgrid");
            assertThat(hello.getBoolean("isWritablePrimary")).isTrue();
            assertThat(hello).doesNotContainKeys("setName", "hosts", "primary", "me", "electionId");
            var cluster = mongos.client.getClusterDescription();
            assertThat(cluster.getType()).isEqualTo(ClusterType.SHARDED);
            assertThat(cluster.getServerDescriptions())
                    .extracting(ServerDescription::getType)
                    .containsExactly(ServerType.SHARD_ROUTER);
            assertThatThrownBy(() -> mongos.client.getDatabase("admin").runCommand(new Document("replSetGetStatus", 1)))
                    .isInstanceOfSatisfying(
                            MongoCommandException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(59));
        }
    }

    @Test
    void shouldServeEachShardKeyInConfigCollectionsWhenPlayingAMongos() {
        try (DrivenStandIn mongos = new DrivenStandIn(StandInSettings.DEFAULTS.asMongos())) {
            mongos.client.getDatabase("app").getCollection("plain").insertOne(new Document("_id", 1));
            mongos.client
                    .getDatabase("admin")
                    .runCommand(new Document("shardCollection", "app.docs").append("key", new Document("tenant", 1)));

            List<Document> entries = mongos.client
                    .getDatabase("config")
                    .getCollection("collections")
                    .find(new Document("_id", "app.docs"))
                    .into(new ArrayList<>());
            List<Document> all = mongos.client
                    .getDatabase("config")
                    .getCollection("collections")
                    .find()
                    .into(new ArrayList<>());

            assertThat(entries).singleElement().satisfies(entry -> {
                assertThat(entry.get("key", Document.class)).isEqualTo(new Document("tenant", 1));
                assertThat(entry.getBoolean("unique")).isFalse();
            });
            assertThat(all)
                    .as("the unsharded collection has no entry")
                    .extracting(entry -> entry.get("_id"))
                    .containsExactly("app.docs");
        }
    }

    /** As a replica set, every reply carries the cluster time; a causally consistent session takes it up. */
    @Test
    void shouldAnswerWithAnOperationTimeAsAReplicaSetDoes() {
        Document ping = standIn.app.runCommand(new Document("ping", 1));
        assertThat(ping.get("operationTime")).isInstanceOf(org.bson.BsonTimestamp.class);
        assertThat(ping.get("$clusterTime", Document.class).get("clusterTime"))
                .isInstanceOf(org.bson.BsonTimestamp.class);

        try (ClientSession session = standIn.client.startSession()) {
            standIn.app.getCollection("docs").insertOne(session, new Document("_id", 1));
            assertThat(session.getOperationTime()).isNotNull();
        }
    }

    /** A driver now believes it can run transactions; mongo-java-server cannot, so the stand-in says so. */
    @Test
    void shouldRefuseATransactionRatherThanApplyItsWritesOneByOne() {
        try (ClientSession session = standIn.client.startSession()) {
            session.startTransaction();
            assertThatThrownBy(() -> standIn.app.getCollection("docs").insertOne(session, new Document("_id", 1)))
                    .isInstanceOf(MongoCommandException.class)
                    .satisfies(e -> assertThat(((MongoException) e).getCode()).isEqualTo(20));
            session.abortTransaction();
        }
        assertThat(standIn.app.getCollection("docs").countDocuments()).isZero();
    }
}
