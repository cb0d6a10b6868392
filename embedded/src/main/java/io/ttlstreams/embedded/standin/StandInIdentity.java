package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.wire.BsonConstants;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the stand-in says it is, the same in every answer: the primary of a one-member replica set running the MongoDB
 * release it plays ({@link ServerVersion}, 7.0 by default). {@code hello} and the legacy {@code isMaster} report the
 * set ({@code setName}, {@code hosts}, {@code primary}, {@code me}, {@code isWritablePrimary}/{@code ismaster}),
 * sessions ({@code logicalSessionTimeoutMinutes}) and the release's wire version (21 for 7.0); {@code buildInfo}
 * reports the release (7.0.0) and {@code replSetGetStatus} the one member. A driver therefore enables what it enables
 * against that release: sessions, retryable writes, change-stream options, and resuming change streams by the error
 * labels the stand-in attaches.
 *
 * <p>Told to ({@link StandInSettings#mongos()}), it says it is a sharded cluster's {@code mongos} instead, as MongoDB's
 * manual describes one's {@code hello} (the {@code hello} command's "Sharded Instances" output, and the {@code isdbgrid}
 * command's page: "When connected to a mongos, the hello command returns a document that contains the string isdbgrid
 * in the msg field"): {@code isWritablePrimary: true} and {@code msg: "isdbgrid"}, with the limits, sessions and wire
 * version above but nothing of a replica set ({@code setName}, {@code hosts}, {@code primary}, {@code me}, {@code
 * electionId}, {@code lastWrite}); {@code replSetGetStatus}, which a {@code mongos} does not have, then fails with
 * CommandNotFound (59). A driver then describes the deployment as sharded (the Java
 * driver's {@code ClusterType.SHARDED}, its server a {@code SHARD_ROUTER}).
 *
 * <p>No {@code topologyVersion} is reported: with one, drivers would switch to streaming monitoring, which needs
 * exhaust cursors mongo-java-server does not serve.
 */
final class StandInIdentity {

    /** The replica set's name. */
    static final String SET_NAME = "ttl-streams-standin";

    private static final AttributeKey<Integer> CONNECTION_ID = AttributeKey.valueOf("ttl-streams-standin-connection");
    /** MongoDB's default lifetime of an idle session. */
    private static final int SESSION_TIMEOUT_MINUTES = 30;

    private static final ObjectId ELECTION_ID = new ObjectId("7fffffff0000000000000001");

    private final Clock clock;
    private final ServerVersion version;
    private final boolean mongos;
    private final AtomicInteger connections = new AtomicInteger();

    StandInIdentity(Clock clock, ServerVersion version, boolean mongos) {
        this.clock = clock;
        this.version = version;
        this.mongos = mongos;
    }

    /** True for the commands this class answers. */
    boolean answers(String databaseName, String command) {
        return command.equalsIgnoreCase("hello")
                || command.equalsIgnoreCase("isMaster")
                || command.equalsIgnoreCase("buildInfo")
                || (command.equalsIgnoreCase("replSetGetStatus") && databaseName.equals("admin"));
    }

    /**
     * Answers {@code hello}, {@code isMaster}, {@code buildInfo} or {@code replSetGetStatus}.
     *
     * @param lastWrite the cluster time of the latest write
     */
    Document answer(Channel channel, String command, Document query, BsonTimestamp lastWrite) {
        if (command.equalsIgnoreCase("buildInfo")) {
            return buildInfo();
        }
        String me = address(channel);
        if (command.equalsIgnoreCase("replSetGetStatus")) {
            if (mongos) {
                throw new MongoServerError(
                        ErrorCodes.COMMAND_NOT_FOUND,
                        ErrorCodes.name(ErrorCodes.COMMAND_NOT_FOUND),
                        "no such command: '" + command + "'");
            }
            return status(me, lastWrite);
        }
        boolean legacy = command.equalsIgnoreCase("isMaster");
        Document response = new Document(legacy ? "ismaster" : "isWritablePrimary", true);
        if (mongos) {
            response.append("msg", "isdbgrid");
        } else {
            response.append("hosts", List.of(me))
                    .append("setName", SET_NAME)
                    .append("setVersion", 1)
                    .append("secondary", false)
                    .append("primary", me)
                    .append("me", me)
                    .append("electionId", ELECTION_ID)
                    .append("lastWrite", lastWrite(lastWrite));
        }
        response.append("maxBsonObjectSize", BsonConstants.MAX_BSON_OBJECT_SIZE)
                .append("maxMessageSizeBytes", MongoWireProtocolHandler.MAX_MESSAGE_SIZE_BYTES)
                .append("maxWriteBatchSize", MongoWireProtocolHandler.MAX_WRITE_BATCH_SIZE)
                .append("localTime", clock.instant())
                .append("logicalSessionTimeoutMinutes", SESSION_TIMEOUT_MINUTES)
                .append("connectionId", connectionId(channel))
                .append("minWireVersion", 0)
                .append("maxWireVersion", version.getWireVersion())
                .append("readOnly", false);
        if (legacy && Boolean.TRUE.equals(query.get("helloOk"))) {
            response.append("helloOk", true);
        }
        return response.append("ok", 1.0);
    }

    private Document buildInfo() {
        List<Integer> array = version.getVersionArray();
        return new Document("version", version.toVersionString())
                .append("versionArray", List.of(array.get(0), array.get(1), array.get(2), 0))
                .append("modules", List.of())
                .append("bits", 64)
                .append("debug", false)
                .append("maxBsonObjectSize", BsonConstants.MAX_BSON_OBJECT_SIZE)
                .append("storageEngines", List.of("inMemory"))
                .append("javascriptEngine", "none")
                .append("ok", 1.0);
    }

    private Document status(String me, BsonTimestamp lastWrite) {
        Document optime = new Document("ts", lastWrite).append("t", 1L);
        Document member = new Document("_id", 0)
                .append("name", me)
                .append("health", 1.0)
                .append("state", 1)
                .append("stateStr", "PRIMARY")
                .append("optime", optime)
                .append("optimeDate", Instant.ofEpochSecond(lastWrite.getTime()))
                .append("electionId", ELECTION_ID)
                .append("configVersion", 1)
                .append("self", true);
        return new Document("set", SET_NAME)
                .append("date", clock.instant())
                .append("myState", 1)
                .append("term", 1L)
                .append("members", List.of(member))
                .append("ok", 1.0);
    }

    private static Document lastWrite(BsonTimestamp lastWrite) {
        Document optime = new Document("ts", lastWrite).append("t", 1L);
        Instant date = Instant.ofEpochSecond(lastWrite.getTime());
        return new Document("opTime", optime)
                .append("lastWriteDate", date)
                .append("majorityOpTime", optime)
                .append("majorityWriteDate", date);
    }

    /** The address the client reached the stand-in at: what a replica set member calls itself. */
    private static String address(Channel channel) {
        if (channel != null && channel.localAddress() instanceof InetSocketAddress local) {
            return local.getAddress().getHostAddress() + ":" + local.getPort();
        }
        return "127.0.0.1:27017";
    }

    private int connectionId(Channel channel) {
        if (channel == null) {
            return 0;
        }
        Integer id = channel.attr(CONNECTION_ID).get();
        if (id == null) {
            id = connections.incrementAndGet();
            Integer earlier = channel.attr(CONNECTION_ID).setIfAbsent(id);
            id = earlier != null ? earlier : id;
        }
        return id;
    }
}
