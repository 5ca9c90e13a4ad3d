import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { NatsService } from '#transport';

/**
 * The long-term memory service: serves the long-term tier over NATS request/reply. This
 * bootstrap connects; the backends and operations are added with the memory work.
 */
@Injectable()
export class MemoryStoreService implements OnApplicationBootstrap {
  private readonly logger = new Logger(MemoryStoreService.name);

  constructor(@Inject(NatsService) private readonly nats: NatsService) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.nats.nc.flush();
    this.logger.log('memory-store connected');
  }
}
