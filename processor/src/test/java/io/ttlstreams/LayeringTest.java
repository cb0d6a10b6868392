package io.ttlstreams;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layering of ttl-streams' production code, stated once and checked on every build: the shared vocabulary at the
 * bottom, the Kafka Streams processors above the rules and the configuration, and the application (launcher, HTTP,
 * resync) on top. A back edge, however convenient, fails this test.
 */
@AnalyzeClasses(packages = "io.ttlstreams", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    /** The scheduler's parts, each with one job (a class's use of itself is no dependency). */
    private static final DescribedPredicate<HasName> SCHEDULER_PART = HasName.Predicates.nameMatching(
            "io\\.ttlstreams\\.processor\\.(EventApplier|DueDrain|RuleReconciler|BlastRadiusGuard)");

    /** What the processor and the sink guard share, and the Avro records, know nothing of ours. */
    @ArchTest
    static final ArchRule contractStandsAlone = mayUseOnly("io.ttlstreams.contract..")
            .because("the contract module is shared by the processor and the sink guard");

    @ArchTest
    static final ArchRule schemasStandAlone = mayUseOnly("io.ttlstreams.schema..");

    /** The rules are total functions over documents: they need the shared vocabulary and nothing else. */
    @ArchTest
    static final ArchRule rulesNeedOnlyTheContract = mayUseOnly("io.ttlstreams.rules..", "io.ttlstreams.contract..")
            .because("rules are evaluated by the processor, explain and resync alike");

    /** Redaction is used by everything that logs, so it may use nothing of ours. */
    @ArchTest
    static final ArchRule secretsStandAlone = mayUseOnly("io.ttlstreams.secrets..");

    /** Configuration reads and validates options; it does not know what runs on them. */
    @ArchTest
    static final ArchRule configKnowsNoProcessing = mayUseOnly(
                    "io.ttlstreams.config..",
                    "io.ttlstreams.contract..",
                    "io.ttlstreams.rules..",
                    "io.ttlstreams.secrets..")
            .because("config is read by every layer above it");

    /** The stream processors are handed what they need; they do not reach up into the topology or the app. */
    @ArchTest
    static final ArchRule processorsKnowNoApplication = noClasses()
            .that()
            .resideInAPackage("io.ttlstreams.processor..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "io.ttlstreams.topology..",
                    "io.ttlstreams.app..",
                    "io.ttlstreams.http..",
                    "io.ttlstreams.health..",
                    "io.ttlstreams.metrics..",
                    "io.ttlstreams.query..",
                    "io.ttlstreams.status..",
                    "io.ttlstreams.resync..",
                    "io.ttlstreams.embedded..")
            .because("the topology builds the processors, and the application runs the topology");

    /**
     * The deployment is rendered from the configuration and the connectors' definitions: it knows nothing that runs,
     * so that the processor's start-up check and the rendered files cannot disagree on what a topic needs.
     */
    @ArchTest
    static final ArchRule platformKnowsNothingThatRuns = mayUseOnly(
                    "io.ttlstreams.platform..",
                    "io.ttlstreams.config..",
                    "io.ttlstreams.connect..",
                    "io.ttlstreams.contract..",
                    "io.ttlstreams.rules..",
                    "io.ttlstreams.secrets..",
                    "io.ttlstreams.processor..")
            .because("the platform files and start-up's topic check share one plan (processor: DeadLetters' size)");

    /** The HTTP transport serves what the capabilities register on it, and knows none of them. */
    @ArchTest
    static final ArchRule transportKnowsNoCapability = noClasses()
            .that()
            .resideInAPackage("io.ttlstreams.http..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "io.ttlstreams.health..",
                    "io.ttlstreams.metrics..",
                    "io.ttlstreams.query..",
                    "io.ttlstreams.status..",
                    "io.ttlstreams.app..");

    /** Jetty's server is the transport's alone: the endpoints see requests and responses of the project's own. */
    @ArchTest
    static final ArchRule onlyTheTransportKnowsTheServer = noClasses()
            .that()
            .resideOutsideOfPackage("io.ttlstreams.http..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.eclipse.jetty.server..")
            .because("the server library can change without an endpoint changing");

    /**
     * The scheduler's parts know none of each other: {@code ExpirySchedulerProcessor} composes them, and a part that
     * needs another's answer takes it as an interface ({@code Admission}, {@code RuleCheck}), so that each part can be
     * read, and tested, alone.
     */
    @ArchTest
    static final ArchRule schedulerPartsKnowNoOtherPart = noClasses()
            .that(SCHEDULER_PART)
            .should()
            .dependOnClassesThat(SCHEDULER_PART)
            .allowEmptyShould(false)
            .because("ExpirySchedulerProcessor wires the parts; they meet through Admission and RuleCheck");

    /**
     * What happens to an entry goes to one sink: the scheduler's parts report to {@code Outcomes}, which counts,
     * audits and writes the expired record as the outcome calls for, never to its collaborators themselves.
     */
    @ArchTest
    static final ArchRule schedulerPartsReportToOneSink = noClasses()
            .that(SCHEDULER_PART)
            .should()
            .dependOnClassesThat(HasName.Predicates.nameMatching(
                    "io\\.ttlstreams\\.processor\\.(AuditWriter|ExpiredRecords|TtlMetrics)"))
            .because("an outcome's count, audit event and expired record are said once, in Outcomes");

    /**
     * Where an entry lies (its schedule key, its index entry, the emission checkpoints) is the state package's own:
     * everyone else sees entries in their {@code EntryState} and changes them through {@code ExpirySchedule}'s
     * operations.
     */
    @ArchTest
    static final ArchRule onlyTheStateKnowsWhereEntriesLie = noClasses()
            .that()
            .resideOutsideOfPackages("io.ttlstreams.state..", "io.ttlstreams.schema..")
            .should()
            .dependOnClassesThat(HasName.Predicates.nameMatching(
                    "io\\.ttlstreams\\.(state\\.ScheduleKey.*|state\\.EmittedDeadlines|schema\\.IndexEntry)"))
            .because("ExpirySchedule's operations take entries in their state, not positions");

    /** Kafka's utilities under {@code internals} are no API: they move or change between releases without notice. */
    @ArchTest
    static final ArchRule noKafkaInternalUtilities = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.apache.kafka.common.utils.internals..")
            .because("Connect registration retried with its ExponentialBackoff, moved there in Kafka 4; Failsafe"
                    + " does that now");

    /** No two packages depend on each other, directly or through others. */
    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("io.ttlstreams.(*)..").should().beFreeOfCycles();

    /** Classes of {@code layer} may use classes of ours only in {@code layer} and {@code allowed}. */
    private static ArchRule mayUseOnly(String layer, String... allowed) {
        String[] packages = new String[allowed.length + 1];
        packages[0] = layer;
        System.arraycopy(allowed, 0, packages, 1, allowed.length);
        return classes()
                .that()
                .resideInAPackage(layer)
                .should()
                .onlyDependOnClassesThat(
                        resideOutsideOfPackage("io.ttlstreams..").or(resideInAnyPackage(packages)));
    }
}
