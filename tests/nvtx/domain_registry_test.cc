// NVTX domains and categories as optrace tags.
#include "nvtx/domain_registry.h"

#include <gtest/gtest.h>

namespace optrace::nvtx {
namespace {

class DomainRegistryTest : public ::testing::Test {
 protected:
  instrument::LossCounter names_over_cap_{"test.names_over_cap"};
  instrument::LossCounter domains_over_cap_{"test.domains_over_cap"};
  instrument::NameTable names_{256, names_over_cap_};
  DomainRegistry registry_{2, names_, domains_over_cap_};
};

TEST_F(DomainRegistryTest, DefaultDomainWithoutCategory_NoTag) {
  EXPECT_EQ(registry_.default_domain().TagId(0), 0u);
}

TEST_F(DomainRegistryTest, DefaultDomainCategories_NamedOrNumberTag) {
  Domain& d = registry_.default_domain();
  d.NameCategory(7, "compute");
  EXPECT_EQ(d.TagId(7), Intern("compute"));
  EXPECT_EQ(d.TagId(9), Intern("9"));
  EXPECT_EQ(d.TagId(100000), Intern("100000"));
}

TEST_F(DomainRegistryTest, NamedDomain_DomainAloneOrDomainSlashCategory) {
  Domain& d = registry_.Create("mylib");
  d.NameCategory(1, "io");
  EXPECT_EQ(d.TagId(0), Intern("mylib"));
  EXPECT_EQ(d.TagId(1), Intern("mylib/io"));
  EXPECT_EQ(d.TagId(2), Intern("mylib/2"));
}

TEST_F(DomainRegistryTest, CategoryRenamedAfterUse_LaterEventsGetNewTag) {
  Domain& d = registry_.Create("mylib");
  EXPECT_EQ(d.TagId(3), Intern("mylib/3"));
  d.NameCategory(3, "net");
  EXPECT_EQ(d.TagId(3), Intern("mylib/net"));
  EXPECT_EQ(d.TagId(70000), Intern("mylib/70000"));
  d.NameCategory(70000, "big");
  EXPECT_EQ(d.TagId(70000), Intern("mylib/big"));
}

TEST_F(DomainRegistryTest, SameNameTwice_SameDomain) {
  EXPECT_EQ(&registry_.Create("a"), &registry_.Create("a"));
}

TEST_F(DomainRegistryTest, MoreDomainsThanCap_SharedDomainAndCounted) {
  Domain& a = registry_.Create("a");
  Domain& b = registry_.Create("b");
  Domain& c = registry_.Create("c");
  EXPECT_NE(&a, &b);
  EXPECT_EQ(c.name(), "<too many domains>");
  EXPECT_EQ(&registry_.Create("d"), &c);
  EXPECT_EQ(domains_over_cap_.value(), 2u);
}

}  // namespace
}  // namespace optrace::nvtx
