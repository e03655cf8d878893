{
  description = "mcpsum: go.sum for MCP servers";

  # Not locked yet (no flake.lock): this machine cannot reach GitHub. Run
  # `nix flake lock` where it can and commit flake.lock.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      lib = nixpkgs.lib;
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: lib.genAttrs systems (system: f system nixpkgs.legacyPackages.${system});

      # "devel" like an unstamped `go build`, plus the commit the flake was built from.
      version = "devel+${self.shortRev or self.dirtyShortRev or "dirty"}";

      # `nix hash path` of `go mod vendor`; changes whenever go.mod, go.sum or the
      # set of imported packages changes. Rewritten by scripts/update-vendorhash.sh.
      vendorHash = "sha256-bxtT8TFRHGoU2eAsXB10RZ8kHvpX1i9S40KksA3SkYw=";

      # go.mod says `go 1.26.8` and nixpkgs builds with GOTOOLCHAIN=local, so an
      # older Go refuses to build: take the first of go_1_26 / go that is new enough.
      goFor = pkgs:
        let
          candidates = builtins.filter (g: g != null) [ (pkgs.go_1_26 or null) (pkgs.go or null) ];
          fit = builtins.filter (g: lib.versionAtLeast g.version "1.26.8") candidates;
        in
        if fit != [ ] then builtins.head fit
        else throw "mcpsum needs Go >= 1.26.8, this nixpkgs has Go ${toString (map (g: g.version) candidates)}; update the nixpkgs input";
      buildGoModuleFor = pkgs: pkgs.buildGoModule.override { go = goFor pkgs; };

      common = pkgs: {
        inherit version vendorHash;
        src = self;
        env.CGO_ENABLED = "0";
        # buildGoModule adds -trimpath, -buildid= and -mod=vendor itself.
        ldflags = [ "-s" "-w" "-X main.version=${version}" ];
      };
    in
    {
      packages = forAllSystems (system: pkgs: {
        default = (buildGoModuleFor pkgs) (common pkgs // {
          pname = "mcpsum";
          # Every binary: mcpsum, its signing helper mcpsum-attest (side by
          # side in $out/bin: mcpsum looks for the helper beside itself) and
          # the transparency log operator's mcpsum-log.
          subPackages = [ "cmd/mcpsum" "cmd/mcpsum-attest" "cmd/mcpsum-log" ];
          doCheck = false; # the unit tests are checks.<system>.unit
          meta = {
            description = "Pin the tools, prompts and resources of MCP servers in mcp.lock and check servers against it";
            homepage = "https://github.com/mcpsum/mcpsum";
            mainProgram = "mcpsum";
          };
        });
      });

      apps = forAllSystems (system: pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${system}.default}/bin/mcpsum";
        };
      });

      devShells = forAllSystems (system: pkgs: {
        # Go for building, gopls for editors, Node.js for the e2e peers (cd e2e && npm ci).
        default = pkgs.mkShell {
          packages = [ (goFor pkgs) pkgs.gopls pkgs.nodejs pkgs.git ];
        };
      });

      checks = forAllSystems (system: pkgs: {
        # Unit tests of the libraries, offline (vendored modules, no network in the
        # Nix sandbox). Tests that need npm peers skip; e2e needs `go test ./e2e`.
        unit = (buildGoModuleFor pkgs) (common pkgs // {
          pname = "mcpsum-unit-tests";
          subPackages = [ "pkg/..." "internal/..." ];
          doCheck = true;
        });
        package = self.packages.${system}.default;
      });
    };
}
