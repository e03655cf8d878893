# Offline stand-in for nixpkgs, used only by .ci/build-checks.sh:
#   nix flake check --no-build --override-input nixpkgs path:ci/nixpkgs-stub
# It provides just the attributes mcpsum's flake.nix uses and returns dummy
# derivations, so the flake's outputs can be evaluated for all four systems
# without downloading nixpkgs. It also asserts the shape of what the flake
# passes (pname/version strings, an SRI or null vendorHash, the version ldflag,
# CGO off, a new enough Go, a list of dev-shell packages). It proves nothing
# about whether the real buildGoModule builds; see scripts/README-build.md.
{
  description = "Offline stand-in for nixpkgs (mcpsum CI only)";

  outputs = { self }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      genAttrs = names: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) names);
      versionAtLeast = v: min: builtins.compareVersions v min >= 0;
      lib = { inherit genAttrs versionAtLeast; };

      need = cond: what: if cond then true else throw "nixpkgs-stub: ${what}";

      stub = system: name: attrs:
        (derivation {
          inherit name system;
          builder = "/bin/sh";
          args = [ "-c" "echo stub > $out" ];
        }) // { stubArgs = attrs; };

      pkgsFor = system:
        let
          mk = name: version: stub system "${name}-${version}" { } // { inherit version; };

          buildGo = a:
            assert need (builtins.isString (a.pname or null)) "buildGoModule: pname must be a string";
            assert need (builtins.isString (a.version or null)) "buildGoModule: version must be a string";
            assert need (a ? vendorHash) "buildGoModule: vendorHash is missing (misspelt?)";
            assert need (a.vendorHash == null || builtins.match "sha256-[A-Za-z0-9+/]{43}=" a.vendorHash != null)
              "buildGoModule: vendorHash must be null or an SRI sha256 (got ${toString a.vendorHash})";
            assert need (a ? src) "buildGoModule: src is missing";
            assert need ((a.env.CGO_ENABLED or null) == "0") "buildGoModule: env.CGO_ENABLED must be \"0\"";
            assert need (builtins.any (f: builtins.match "-X main\\.version=.+" f != null) (a.ldflags or [ ]))
              "buildGoModule: ldflags must stamp -X main.version=...";
            assert need (builtins.isList (a.subPackages or null) && a.subPackages != [ ])
              "buildGoModule: subPackages must be a non-empty list";
            stub system "${a.pname}-${a.version}" a;
        in
        {
          inherit lib;
          buildGoModule = {
            __functor = _: buildGo;
            override = o:
              assert need (builtins.isString (o.go.version or null)) "buildGoModule.override: go must be a Go package";
              assert need (versionAtLeast o.go.version "1.26.8") "buildGoModule.override: Go ${o.go.version} is older than go.mod's 1.26.8";
              { __functor = _: buildGo; };
          };
          mkShell = a:
            assert need (builtins.isList (a.packages or null)) "mkShell: packages must be a list";
            stub system "dev-shell" a;
          go = mk "go" "1.26.8";
          gopls = mk "gopls" "0.21.0";
          nodejs = mk "nodejs" "22.0.0";
          git = mk "git" "2.50.0";
        };
    in
    {
      inherit lib;
      legacyPackages = genAttrs systems pkgsFor;
    };
}
