# Used by .ci/build-checks.sh (flake-eval): `nix eval <flake>#OUTPUT --apply
# "(<this file>) \"OUTPUT\""` forces every derivation of one flake output for
# every system against ci/nixpkgs-stub and prints one line per system.
output:
let
  lines = f: g: builtins.concatStringsSep "" (map (s: "${s}: ${g f.${s}}\n") (builtins.attrNames f));
  names = ds: toString (map (n: ds.${n}.name) (builtins.attrNames ds));
  drvs = ds: toString (map (n: baseNameOf ds.${n}.drvPath) (builtins.attrNames ds));
  summarize = {
    packages = o:
      # every binary under cmd/, so the helper lands beside mcpsum
      assert o.default.stubArgs.subPackages == [ "cmd/mcpsum" "cmd/mcpsum-attest" "cmd/mcpsum-log" ];
      "packages: ${names o} vendorHash=${o.default.stubArgs.vendorHash} ${drvs o}";
    apps = o:
      assert o.default.type == "app";
      assert builtins.match ".*/bin/mcpsum" o.default.program != null;
      "apps.default: .../${baseNameOf (dirOf (dirOf o.default.program))}/bin/mcpsum";
    devShells = o:
      "devShells.default: [${toString (map (p: p.name) o.default.stubArgs.packages)}] ${drvs o}";
    checks = o:
      assert o.unit.stubArgs.doCheck;
      "checks: ${names o} ${drvs o}";
  };
in
f: lines f summarize.${output}
