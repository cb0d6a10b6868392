package io.ttlstreams.embedded;

import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.KafkaPrincipal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka users of an {@link AclPlan} on the embedded broker, as a Strimzi User Operator makes them: a SCRAM-SHA-512
 * credential per principal with a fresh random password, the user's Secret as files ({@code
 * <directory>/<user>/password} and {@code <directory>/<user>/sasl.jaas.config}, readable by their owner only), and
 * exactly the plan's ACLs on the broker, every other ACL removed.
 *
 * <p>The parts of the stack read their user's JAAS line through a {@code directory} config provider ({@link
 * #jaasReference}), as a connector on Strimzi reads its mounted Secret; nothing prints it.
 */
public final class KafkaUsers {

    private static final Logger log = LoggerFactory.getLogger(KafkaUsers.class);

    /** The iterations of each credential: SCRAM-SHA-512's minimum, as the stack is rebuilt often. */
    private static final int ITERATIONS = 4096;

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(20);

    /** The file of a user's directory holding its JAAS line, as the key of a Strimzi KafkaUser's Secret. */
    public static final String JAAS_FILE = SaslConfigs.SASL_JAAS_CONFIG;

    private final Path directory;
    private final String bootstrapServers;
    private AclPlan plan;

    private KafkaUsers(Path directory, String bootstrapServers, AclPlan plan) {
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
        this.plan = plan;
    }

    /**
     * Creates (or, on a reused data directory, renews) each principal's credential and secret files, and applies the
     * plan's ACLs; returns once the broker authenticates and authorizes by them.
     *
     * @param kafka     the broker, which must enforce security
     * @param directory where the users' secret directories go
     * @throws EmbeddedStackException if the broker refuses or does not confirm in time
     */
    static KafkaUsers create(EmbeddedKafka kafka, AclPlan plan, Path directory) {
        if (!kafka.security().enforced()) {
            throw new IllegalArgumentException("The embedded broker enforces no security: it has no users");
        }
        KafkaUsers users = new KafkaUsers(directory, kafka.bootstrapServers(), plan);
        SecureRandom random = new SecureRandom();
        List<UserScramCredentialAlteration> credentials = new ArrayList<>();
        try {
            PrivateFiles.createDirectory(directory);
            for (KafkaPrincipal principal : plan.principals()) {
                byte[] secret = new byte[32];
                random.nextBytes(secret);
                String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
                Path user = users.directory(principal.user());
                PrivateFiles.createDirectory(user);
                PrivateFiles.write(user.resolve("password"), password);
                PrivateFiles.write(user.resolve(JAAS_FILE), jaas(principal.user(), password));
                credentials.add(new UserScramCredentialUpsertion(
                        principal.user(), new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, ITERATIONS), password));
            }
        } catch (IOException e) {
            throw new EmbeddedStackException("Could not write the Kafka users' secrets in " + directory, e);
        }
        try (Admin admin = kafka.setupAdmin()) {
            get(admin.alterUserScramCredentials(credentials).all(), "create the users' SCRAM credentials");
            users.replaceAcls(admin, plan);
            awaitCredentials(admin, plan);
        }
        log.debug(
                "Kafka users {} with {} ACLs, secrets in {}",
                plan.principals().stream().map(KafkaPrincipal::user).toList(),
                plan.bindings().size(),
                directory);
        return users;
    }

    /**
     * Makes {@code plan}'s ACLs the broker's, unless they are already: the stack's rules changed.
     *
     * @throws EmbeddedStackException if the broker refuses or does not confirm in time
     */
    synchronized void apply(EmbeddedKafka kafka, AclPlan plan) {
        if (Set.copyOf(plan.bindings()).equals(Set.copyOf(this.plan.bindings()))) {
            return;
        }
        try (Admin admin = kafka.setupAdmin()) {
            replaceAcls(admin, plan);
        }
        this.plan = plan;
    }

    /** Deletes every ACL on the broker, creates {@code plan}'s, and waits until the broker reports exactly those. */
    private void replaceAcls(Admin admin, AclPlan plan) {
        get(admin.deleteAcls(List.of(AclBindingFilter.ANY)).all(), "delete the broker's ACLs");
        get(admin.createAcls(plan.bindings()).all(), "create the plan's ACLs");
        Set<AclBinding> expected = Set.copyOf(plan.bindings());
        await(
                () -> new HashSet<>(get(admin.describeAcls(AclBindingFilter.ANY).values(), "describe the ACLs"))
                        .equals(expected),
                "the broker to enforce the plan's " + expected.size() + " ACLs");
    }

    /** SCRAM credentials reach the broker through the metadata log: waits until it knows every user's. */
    private static void awaitCredentials(Admin admin, AclPlan plan) {
        List<String> users =
                plan.principals().stream().map(KafkaPrincipal::user).toList();
        await(
                () -> get(admin.describeUserScramCredentials(users).all(), "describe the credentials")
                                .size()
                        == users.size(),
                "the broker to know the users " + users);
    }

    private static void await(Check check, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                if (check.done()) {
                    return;
                }
            } catch (EmbeddedStackException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new EmbeddedStackException("Timed out after " + TIMEOUT + " waiting for " + what);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmbeddedStackException("Interrupted while waiting for " + what, e);
            }
        }
    }

    private interface Check {
        boolean done();
    }

    private static <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new EmbeddedStackException(
                    "The embedded broker did not " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new EmbeddedStackException("The embedded broker did not " + what + " within " + TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while waiting to " + what, e);
        }
    }

    /** The JAAS line of a SCRAM user, as the {@code sasl.jaas.config} key of a Strimzi KafkaUser's Secret. */
    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    /** The plan whose users and ACLs the broker has. */
    public synchronized AclPlan plan() {
        return plan;
    }

    /** Where the users' secret directories are. */
    public Path directory() {
        return directory;
    }

    /** The secret directory of {@code user}: {@code password} and {@code sasl.jaas.config}, owner only. */
    public Path directory(String user) {
        return directory.resolve(Objects.requireNonNull(user, "user"));
    }

    /**
     * The config provider reference to {@code user}'s JAAS line, {@code ${directory:<dir>/<user>:sasl.jaas.config}},
     * for a configuration whose {@code config.providers} include {@code directory} (Kafka's {@code
     * DirectoryConfigProvider}).
     */
    public String jaasReference(String user) {
        return "${directory:" + directory(user) + ":" + JAAS_FILE + "}";
    }

    /**
     * The client settings that log in as {@code user} on the broker's clients' listener, its JAAS line read from its
     * secret file: for tests and tools that act as one of the plan's principals. Never print them.
     */
    public Properties clientProperties(String user) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putAll(securitySettings());
        try {
            props.put(
                    SaslConfigs.SASL_JAAS_CONFIG,
                    Files.readString(directory(user).resolve(JAAS_FILE), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new EmbeddedStackException("No secret of Kafka user " + user + " in " + directory, e);
        }
        return props;
    }

    /** The security settings of every client of the stack, but for whose JAAS line they carry. */
    public static Properties securitySettings() {
        Properties props = new Properties();
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SecurityProtocol.SASL_PLAINTEXT.name);
        props.put(SaslConfigs.SASL_MECHANISM, EmbeddedKafka.SASL_MECHANISM);
        return props;
    }
}
