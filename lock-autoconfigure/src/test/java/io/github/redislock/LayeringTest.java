package io.github.redislock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers of the library: applications see the API packages, the lockers of {@code core} and the
 * auto-configuration; the sub-packages of {@code core} are internal (public only for one another), so no
 * public or protected signature outside them may name one of their types, and they depend on one another
 * in one direction only.
 */
class LayeringTest {

    private static final String INTERNAL = "io.github.redislock.core.";

    /** What applications program against: the lockers' interfaces, the annotations, leader election, Spring Integration, observation, actuator, and the lockers themselves. */
    private static final Set<String> API_PACKAGES = Set.of("io.github.redislock", "io.github.redislock.annotation",
            "io.github.redislock.leader", "io.github.redislock.integration", "io.github.redislock.observation",
            "io.github.redislock.actuate", "io.github.redislock.core");

    private static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.github.redislock");

    @Test
    void theApiPackagesExposeNoInternalTypeInAPublicOrProtectedSignature() {
        assertThat(exposures(LIBRARY.stream().filter(type -> API_PACKAGES.contains(type.getPackageName())).toList(), true))
                .as("public or protected signatures of the API naming an internal type").isEmpty();
    }

    @Test
    void theAutoConfigurationsPublicSurfaceExposesNoInternalType() {
        assertThat(exposures(LIBRARY.stream().filter(type -> type.getPackageName().equals("io.github.redislock.autoconfigure")).toList(), false))
                .as("public members of the auto-configuration naming an internal type").isEmpty();
    }

    @Test
    void theInternalPackagesOfCoreHaveNoDependencyCycle() {
        slices().matching("io.github.redislock.core.(*)..").should().beFreeOfCycles().check(LIBRARY);
    }

    /**
     * The parts beneath the lockers know nothing of them: a part needs the locker's owner or its events'
     * source handed to it, not the locker. Only the benchmarks' seam builds a locker, so it sits above it.
     */
    @Test
    void noInternalPackageOfCoreDependsOnTheLockersAbove() {
        noClasses().that().resideInAPackage("io.github.redislock.core.*..")
                .and().resideOutsideOfPackage("io.github.redislock.core.bench..")
                .should().dependOnClassesThat().resideInAPackage("io.github.redislock.core").check(LIBRARY);
    }

    @Test
    void theCheckSeesTheInternalPackages() {
        assertThat(LIBRARY.stream().filter(LayeringTest::internal).map(JavaClass::getPackageName).distinct())
                .contains("io.github.redislock.core.script", "io.github.redislock.core.wait", "io.github.redislock.core.hold");
    }

    /** Each public (and, with {@code protectedToo}, protected) signature of the visible classes among {@code types} that names an internal type. */
    private static List<String> exposures(List<JavaClass> types, boolean protectedToo) {
        List<String> found = new ArrayList<>();
        for (JavaClass type : types) {
            if (!visible(type)) {
                continue;
            }
            Stream.concat(type.getSuperclass().stream(), type.getInterfaces().stream())
                    .forEach(supertype -> internalIn(supertype).forEach(internal -> found.add(type.getName() + " extends " + internal)));
            for (JavaMember member : type.getMembers()) {
                boolean shown = member.getModifiers().contains(JavaModifier.PUBLIC)
                        || protectedToo && member.getModifiers().contains(JavaModifier.PROTECTED);
                if (!shown) {
                    continue;
                }
                List<JavaType> signature = new ArrayList<>();
                if (member instanceof JavaField field) {
                    signature.add(field.getType());
                }
                if (member instanceof JavaCodeUnit code) {
                    signature.add(code.getReturnType());
                    signature.addAll(code.getParameterTypes());
                    code.getThrowsClause().getTypes().forEach(signature::add);
                }
                signature.stream().flatMap(LayeringTest::internalIn)
                        .forEach(internal -> found.add(member.getFullName() + " names " + internal));
            }
        }
        return found;
    }

    private static boolean visible(JavaClass type) {
        for (JavaClass enclosing = type; enclosing != null; enclosing = enclosing.getEnclosingClass().orElse(null)) {
            if (!enclosing.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    /** In a sub-package of {@code core}: the lockers in {@code core} itself are public API. */
    private static boolean internal(JavaClass type) {
        return type.getPackageName().startsWith(INTERNAL);
    }

    private static Stream<String> internalIn(JavaType type) {
        return type.getAllInvolvedRawTypes().stream().filter(LayeringTest::internal).map(JavaClass::getName);
    }
}
